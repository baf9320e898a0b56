module @hofuse {
  // k1_dense1 : f64[4,5] = map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 dense1.W)) dense1.b) x
  // sources: dense1
  func.func @k1_dense1(%x: tensor<4x6xf64>, %dense1_W: tensor<6x5xf64>, %dense1_b: tensor<5xf64>) -> tensor<4x5xf64> {
    %0 = "stablehlo.transpose"(%dense1_W) { permutation = array<i64: 1, 0> } : (tensor<6x5xf64>) -> tensor<5x6xf64> loc("dense1")
    %1 = "stablehlo.dot_general"(%x, %dense1_W) {
      dot_dimension_numbers = #stablehlo.dot<
  lhs_batching_dimensions = [],
  rhs_batching_dimensions = [],
  lhs_contracting_dimensions = [1],
  rhs_contracting_dimensions = [0]
>,
      precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]
    } : (tensor<4x6xf64>, tensor<6x5xf64>) -> tensor<4x5xf64> loc("dense1")
    %2 = "stablehlo.broadcast_in_dim"(%dense1_b) { broadcast_dimensions = array<i64: 1> } : (tensor<5xf64>) -> tensor<4x5xf64> loc("dense1")
    %3 = "stablehlo.add"(%1, %2) : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64> loc("dense1")
    "func.return"(%3) : (tensor<4x5xf64>) -> ()
  }

  // k2_bn1 : f64[4,5] = map (\r -> nzip (\v m s g b -> (v - m) * rsqrt (s + 1e-05) * g + b) r bn1.mean bn1.var bn1.scale bn1.shift) t1_dense1
  // sources: bn1
  func.func @k2_bn1(%t1_dense1: tensor<4x5xf64>, %bn1_mean: tensor<5xf64>, %bn1_var: tensor<5xf64>, %bn1_scale: tensor<5xf64>, %bn1_shift: tensor<5xf64>) -> tensor<4x5xf64> {
    %0 = "stablehlo.broadcast_in_dim"(%bn1_mean) { broadcast_dimensions = array<i64: 1> } : (tensor<5xf64>) -> tensor<4x5xf64> loc("bn1")
    %1 = "stablehlo.subtract"(%t1_dense1, %0) : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64> loc("bn1")
    %2 = "stablehlo.constant"() { value = dense<1.0e-05> : tensor<f64> } : () -> tensor<f64> loc("bn1")
    %3 = "stablehlo.broadcast_in_dim"(%2) { broadcast_dimensions = array<i64> } : (tensor<f64>) -> tensor<5xf64> loc("bn1")
    %4 = "stablehlo.add"(%bn1_var, %3) : (tensor<5xf64>, tensor<5xf64>) -> tensor<5xf64> loc("bn1")
    %5 = "stablehlo.rsqrt"(%4) : (tensor<5xf64>) -> tensor<5xf64> loc("bn1")
    %6 = "stablehlo.broadcast_in_dim"(%5) { broadcast_dimensions = array<i64: 1> } : (tensor<5xf64>) -> tensor<4x5xf64> loc("bn1")
    %7 = "stablehlo.multiply"(%1, %6) : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64> loc("bn1")
    %8 = "stablehlo.broadcast_in_dim"(%bn1_scale) { broadcast_dimensions = array<i64: 1> } : (tensor<5xf64>) -> tensor<4x5xf64> loc("bn1")
    %9 = "stablehlo.multiply"(%7, %8) : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64> loc("bn1")
    %10 = "stablehlo.broadcast_in_dim"(%bn1_shift) { broadcast_dimensions = array<i64: 1> } : (tensor<5xf64>) -> tensor<4x5xf64> loc("bn1")
    %11 = "stablehlo.add"(%9, %10) : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64> loc("bn1")
    "func.return"(%11) : (tensor<4x5xf64>) -> ()
  }

  // k3_relu1 : f64[4,5] = map (\r -> map (\v -> max v 0) r) t2_bn1
  // sources: relu1
  func.func @k3_relu1(%t2_bn1: tensor<4x5xf64>) -> tensor<4x5xf64> {
    %0 = "stablehlo.constant"() { value = dense<0.0> : tensor<f64> } : () -> tensor<f64> loc("relu1")
    %1 = "stablehlo.broadcast_in_dim"(%0) { broadcast_dimensions = array<i64> } : (tensor<f64>) -> tensor<4x5xf64> loc("relu1")
    %2 = "stablehlo.compare"(%t2_bn1, %1) {
      compare_type = #stablehlo<comparison_type FLOAT>,
      comparison_direction = #stablehlo<comparison_direction GT>
    } : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xi1> loc("relu1")
    %3 = "stablehlo.compare"(%t2_bn1, %t2_bn1) {
      compare_type = #stablehlo<comparison_type FLOAT>,
      comparison_direction = #stablehlo<comparison_direction NE>
    } : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xi1> loc("relu1")
    %4 = "stablehlo.or"(%2, %3) : (tensor<4x5xi1>, tensor<4x5xi1>) -> tensor<4x5xi1> loc("relu1")
    %5 = "stablehlo.select"(%4, %t2_bn1, %1) : (tensor<4x5xi1>, tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64> loc("relu1")
    "func.return"(%5) : (tensor<4x5xf64>) -> ()
  }

  func.func @main(%x: tensor<4x6xf64>, %dense1_W: tensor<6x5xf64>, %dense1_b: tensor<5xf64>, %bn1_mean: tensor<5xf64>, %bn1_var: tensor<5xf64>, %bn1_scale: tensor<5xf64>, %bn1_shift: tensor<5xf64>) -> tensor<4x5xf64> {
    %t1_dense1 = "func.call"(%x, %dense1_W, %dense1_b) {callee = @k1_dense1} : (tensor<4x6xf64>, tensor<6x5xf64>, tensor<5xf64>) -> tensor<4x5xf64> loc("k1_dense1")
    %t2_bn1 = "func.call"(%t1_dense1, %bn1_mean, %bn1_var, %bn1_scale, %bn1_shift) {callee = @k2_bn1} : (tensor<4x5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>) -> tensor<4x5xf64> loc("k2_bn1")
    %t3_relu1 = "func.call"(%t2_bn1) {callee = @k3_relu1} : (tensor<4x5xf64>) -> tensor<4x5xf64> loc("k3_relu1")
    "func.return"(%t3_relu1) : (tensor<4x5xf64>) -> ()
  }
}
