module @hofuse {
  // k1_kernel : f64[6] = flatten 0 (map (\Ab -> rnz (zip (+)) (\c q -> map (*q) c) (flip 0 Ab) u) (subdiv 0 2 A))
  func.func @k1_kernel(%A: tensor<6x5xf64>, %u: tensor<5xf64>) -> tensor<6xf64> {
    %0 = "stablehlo.reshape"(%A) : (tensor<6x5xf64>) -> tensor<3x2x5xf64>
    %1 = "stablehlo.transpose"(%0) { permutation = array<i64: 0, 2, 1> } : (tensor<3x2x5xf64>) -> tensor<3x5x2xf64>
    %2 = "stablehlo.dot_general"(%0, %u) {
      dot_dimension_numbers = #stablehlo.dot<
  lhs_batching_dimensions = [],
  rhs_batching_dimensions = [],
  lhs_contracting_dimensions = [2],
  rhs_contracting_dimensions = [0]
>,
      precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]
    } : (tensor<3x2x5xf64>, tensor<5xf64>) -> tensor<3x2xf64>
    %3 = "stablehlo.reshape"(%2) : (tensor<3x2xf64>) -> tensor<6xf64>
    "func.return"(%3) : (tensor<6xf64>) -> ()
  }

  func.func @main(%A: tensor<6x5xf64>, %u: tensor<5xf64>) -> tensor<6xf64> {
    %t1_kernel = "func.call"(%A, %u) {callee = @k1_kernel} : (tensor<6x5xf64>, tensor<5xf64>) -> tensor<6xf64> loc("k1_kernel")
    "func.return"(%t1_kernel) : (tensor<6xf64>) -> ()
  }
}
