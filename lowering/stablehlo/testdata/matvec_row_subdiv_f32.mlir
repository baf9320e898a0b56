module @hofuse {
  // k1_kernel : f32[5] = map (\r -> rnz (+) (\b c -> rnz (+) (*) b c) r (subdiv 0 3 u)) (subdiv 1 3 A)
  func.func @k1_kernel(%A: tensor<5x6xf32>, %u: tensor<6xf32>) -> tensor<5xf32> {
    %0 = "stablehlo.reshape"(%A) : (tensor<5x6xf32>) -> tensor<5x2x3xf32>
    %1 = "stablehlo.reshape"(%u) : (tensor<6xf32>) -> tensor<2x3xf32>
    %2 = "stablehlo.dot_general"(%0, %1) {
      dot_dimension_numbers = #stablehlo.dot<
  lhs_batching_dimensions = [1],
  rhs_batching_dimensions = [0],
  lhs_contracting_dimensions = [2],
  rhs_contracting_dimensions = [1]
>,
      precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]
    } : (tensor<5x2x3xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
    %3 = "stablehlo.transpose"(%2) { permutation = array<i64: 1, 0> } : (tensor<2x5xf32>) -> tensor<5x2xf32>
    %4 = "stablehlo.constant"() { value = dense<0.0> : tensor<f32> } : () -> tensor<f32>
    %6 = "stablehlo.reduce"(%3, %4) ({
      ^reductionFn(%arg0: tensor<f32>, %arg1: tensor<f32>) :
          %5 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%5) : (tensor<f32>) -> ()
    }) { dimensions = array<i64: 1> } : (tensor<5x2xf32>, tensor<f32>) -> tensor<5xf32>
    "func.return"(%6) : (tensor<5xf32>) -> ()
  }

  func.func @main(%A: tensor<5x6xf32>, %u: tensor<6xf32>) -> tensor<5xf32> {
    %t1_kernel = "func.call"(%A, %u) {callee = @k1_kernel} : (tensor<5x6xf32>, tensor<6xf32>) -> tensor<5xf32> loc("k1_kernel")
    "func.return"(%t1_kernel) : (tensor<5xf32>) -> ()
  }
}
