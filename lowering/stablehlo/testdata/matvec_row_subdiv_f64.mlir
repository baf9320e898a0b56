module @hofuse {
  // k1_kernel : f64[5] = map (\r -> rnz (+) (\b c -> rnz (+) (*) b c) r (subdiv 0 3 u)) (subdiv 1 3 A)
  func.func @k1_kernel(%A: tensor<5x6xf64>, %u: tensor<6xf64>) -> tensor<5xf64> {
    %0 = "stablehlo.reshape"(%A) : (tensor<5x6xf64>) -> tensor<5x2x3xf64>
    %1 = "stablehlo.reshape"(%u) : (tensor<6xf64>) -> tensor<2x3xf64>
    %2 = "stablehlo.dot_general"(%0, %1) {
      dot_dimension_numbers = #stablehlo.dot<
  lhs_batching_dimensions = [1],
  rhs_batching_dimensions = [0],
  lhs_contracting_dimensions = [2],
  rhs_contracting_dimensions = [1]
>,
      precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]
    } : (tensor<5x2x3xf64>, tensor<2x3xf64>) -> tensor<2x5xf64>
    %3 = "stablehlo.transpose"(%2) { permutation = array<i64: 1, 0> } : (tensor<2x5xf64>) -> tensor<5x2xf64>
    %4 = "stablehlo.constant"() { value = dense<0.0> : tensor<f64> } : () -> tensor<f64>
    %6 = "stablehlo.reduce"(%3, %4) ({
      ^reductionFn(%arg0: tensor<f64>, %arg1: tensor<f64>) :
          %5 = "stablehlo.add"(%arg0, %arg1) : (tensor<f64>, tensor<f64>) -> tensor<f64>
          "stablehlo.return"(%5) : (tensor<f64>) -> ()
    }) { dimensions = array<i64: 1> } : (tensor<5x2xf64>, tensor<f64>) -> tensor<5xf64>
    "func.return"(%6) : (tensor<5xf64>) -> ()
  }

  func.func @main(%A: tensor<5x6xf64>, %u: tensor<6xf64>) -> tensor<5xf64> {
    %t1_kernel = "func.call"(%A, %u) {callee = @k1_kernel} : (tensor<5x6xf64>, tensor<6xf64>) -> tensor<5xf64> loc("k1_kernel")
    "func.return"(%t1_kernel) : (tensor<5xf64>) -> ()
  }
}
