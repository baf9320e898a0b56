module @hofuse {
  // k1_kernel : f32[6] = flatten 0 (map (\Ab -> rnz (zip (+)) (\c q -> map (*q) c) (flip 0 Ab) u) (subdiv 0 2 A))
  func.func @k1_kernel(%A: tensor<6x5xf32>, %u: tensor<5xf32>) -> tensor<6xf32> {
    %0 = "stablehlo.reshape"(%A) : (tensor<6x5xf32>) -> tensor<3x2x5xf32>
    %1 = "stablehlo.transpose"(%0) { permutation = array<i64: 0, 2, 1> } : (tensor<3x2x5xf32>) -> tensor<3x5x2xf32>
    %2 = "stablehlo.dot_general"(%0, %u) {
      dot_dimension_numbers = #stablehlo.dot<
  lhs_batching_dimensions = [],
  rhs_batching_dimensions = [],
  lhs_contracting_dimensions = [2],
  rhs_contracting_dimensions = [0]
>,
      precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]
    } : (tensor<3x2x5xf32>, tensor<5xf32>) -> tensor<3x2xf32>
    %3 = "stablehlo.reshape"(%2) : (tensor<3x2xf32>) -> tensor<6xf32>
    "func.return"(%3) : (tensor<6xf32>) -> ()
  }

  func.func @main(%A: tensor<6x5xf32>, %u: tensor<5xf32>) -> tensor<6xf32> {
    %t1_kernel = "func.call"(%A, %u) {callee = @k1_kernel} : (tensor<6x5xf32>, tensor<5xf32>) -> tensor<6xf32> loc("k1_kernel")
    "func.return"(%t1_kernel) : (tensor<6xf32>) -> ()
  }
}
