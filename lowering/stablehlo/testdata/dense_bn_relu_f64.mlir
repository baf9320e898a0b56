module @hofuse {
  // k1_relu1_dense1 : f64[4,5] = map (\r -> map (\v -> max v 0) r) (map (\r -> nzip (\v m s g b -> (v - m) * rsqrt (s + 1e-05) * g + b) r bn1.mean bn1.var bn1.scale bn1.shift) (map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 dense1.W)) dense1.b) x))
  // sources: relu1, bn1, dense1
  func.func @k1_relu1_dense1(%x: tensor<4x6xf64>, %dense1_W: tensor<6x5xf64>, %dense1_b: tensor<5xf64>, %bn1_mean: tensor<5xf64>, %bn1_var: tensor<5xf64>, %bn1_scale: tensor<5xf64>, %bn1_shift: tensor<5xf64>) -> tensor<4x5xf64> {
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
    %4 = "stablehlo.broadcast_in_dim"(%bn1_mean) { broadcast_dimensions = array<i64: 1> } : (tensor<5xf64>) -> tensor<4x5xf64> loc("bn1")
    %5 = "stablehlo.subtract"(%3, %4) : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64> loc("bn1")
    %6 = "stablehlo.constant"() { value = dense<1.0e-05> : tensor<f64> } : () -> tensor<f64> loc("bn1")
    %7 = "stablehlo.broadcast_in_dim"(%6) { broadcast_dimensions = array<i64> } : (tensor<f64>) -> tensor<5xf64> loc("bn1")
    %8 = "stablehlo.add"(%bn1_var, %7) : (tensor<5xf64>, tensor<5xf64>) -> tensor<5xf64> loc("bn1")
    %9 = "stablehlo.rsqrt"(%8) : (tensor<5xf64>) -> tensor<5xf64> loc("bn1")
    %10 = "stablehlo.broadcast_in_dim"(%9) { broadcast_dimensions = array<i64: 1> } : (tensor<5xf64>) -> tensor<4x5xf64> loc("bn1")
    %11 = "stablehlo.multiply"(%5, %10) : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64> loc("bn1")
    %12 = "stablehlo.broadcast_in_dim"(%bn1_scale) { broadcast_dimensions = array<i64: 1> } : (tensor<5xf64>) -> tensor<4x5xf64> loc("bn1")
    %13 = "stablehlo.multiply"(%11, %12) : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64> loc("bn1")
    %14 = "stablehlo.broadcast_in_dim"(%bn1_shift) { broadcast_dimensions = array<i64: 1> } : (tensor<5xf64>) -> tensor<4x5xf64> loc("bn1")
    %15 = "stablehlo.add"(%13, %14) : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64> loc("bn1")
    %16 = "stablehlo.constant"() { value = dense<0.0> : tensor<f64> } : () -> tensor<f64> loc("relu1")
    %17 = "stablehlo.broadcast_in_dim"(%16) { broadcast_dimensions = array<i64> } : (tensor<f64>) -> tensor<4x5xf64> loc("relu1")
    %18 = "stablehlo.compare"(%15, %17) {
      compare_type = #stablehlo<comparison_type FLOAT>,
      comparison_direction = #stablehlo<comparison_direction GT>
    } : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xi1> loc("relu1")
    %19 = "stablehlo.compare"(%15, %15) {
      compare_type = #stablehlo<comparison_type FLOAT>,
      comparison_direction = #stablehlo<comparison_direction NE>
    } : (tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xi1> loc("relu1")
    %20 = "stablehlo.or"(%18, %19) : (tensor<4x5xi1>, tensor<4x5xi1>) -> tensor<4x5xi1> loc("relu1")
    %21 = "stablehlo.select"(%20, %15, %17) : (tensor<4x5xi1>, tensor<4x5xf64>, tensor<4x5xf64>) -> tensor<4x5xf64> loc("relu1")
    "func.return"(%21) : (tensor<4x5xf64>) -> ()
  }

  func.func @main(%x: tensor<4x6xf64>, %dense1_W: tensor<6x5xf64>, %dense1_b: tensor<5xf64>, %bn1_mean: tensor<5xf64>, %bn1_var: tensor<5xf64>, %bn1_scale: tensor<5xf64>, %bn1_shift: tensor<5xf64>) -> tensor<4x5xf64> {
    %t1_relu1_dense1 = "func.call"(%x, %dense1_W, %dense1_b, %bn1_mean, %bn1_var, %bn1_scale, %bn1_shift) {callee = @k1_relu1_dense1} : (tensor<4x6xf64>, tensor<6x5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>) -> tensor<4x5xf64> loc("k1_relu1_dense1")
    "func.return"(%t1_relu1_dense1) : (tensor<4x5xf64>) -> ()
  }
}
