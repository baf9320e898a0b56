module @hofuse {
  // k1_kernel : f64[5] = rnz (zip (+)) (\c q -> map (*q) c) (flip 0 A) u
  func.func @k1_kernel(%A: tensor<5x6xf64>, %u: tensor<6xf64>) -> tensor<5xf64> {
    %0 = "stablehlo.transpose"(%A) { permutation = array<i64: 1, 0> } : (tensor<5x6xf64>) -> tensor<6x5xf64>
    %1 = "stablehlo.dot_general"(%A, %u) {
      dot_dimension_numbers = #stablehlo.dot<
  lhs_batching_dimensions = [],
  rhs_batching_dimensions = [],
  lhs_contracting_dimensions = [1],
  rhs_contracting_dimensions = [0]
>,
      precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]
    } : (tensor<5x6xf64>, tensor<6xf64>) -> tensor<5xf64>
    "func.return"(%1) : (tensor<5xf64>) -> ()
  }

  func.func @main(%A: tensor<5x6xf64>, %u: tensor<6xf64>) -> tensor<5xf64> {
    %t1_kernel = "func.call"(%A, %u) {callee = @k1_kernel} : (tensor<5x6xf64>, tensor<6xf64>) -> tensor<5xf64> loc("k1_kernel")
    "func.return"(%t1_kernel) : (tensor<5xf64>) -> ()
  }
}
