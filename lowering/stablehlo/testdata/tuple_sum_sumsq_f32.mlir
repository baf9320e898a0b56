module @hofuse {
  // k1_kernel : (f32, f32) = rnz (\a b -> (fst a + fst b, snd a + snd b)) (\x -> (x, x * x)) v
  func.func @k1_kernel(%v: tensor<9xf32>) -> (tensor<f32>, tensor<f32>) {
    %0 = "stablehlo.multiply"(%v, %v) : (tensor<9xf32>, tensor<9xf32>) -> tensor<9xf32>
    %1 = "stablehlo.constant"() { value = dense<0.0> : tensor<f32> } : () -> tensor<f32>
    %2 = "stablehlo.constant"() { value = dense<0.0> : tensor<f32> } : () -> tensor<f32>
    %5, %6 = "stablehlo.reduce"(%v, %0, %1, %2) ({
      ^reductionFn(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<f32>) :
          %3 = "stablehlo.add"(%arg0, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          %4 = "stablehlo.add"(%arg1, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%3, %4) : (tensor<f32>, tensor<f32>) -> ()
    }) { dimensions = array<i64: 0> } : (tensor<9xf32>, tensor<9xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
    "func.return"(%5, %6) : (tensor<f32>, tensor<f32>) -> ()
  }

  func.func @main(%v: tensor<9xf32>) -> (tensor<f32>, tensor<f32>) {
    %t1_kernel_0, %t1_kernel_1 = "func.call"(%v) {callee = @k1_kernel} : (tensor<9xf32>) -> (tensor<f32>, tensor<f32>) loc("k1_kernel")
    "func.return"(%t1_kernel_0, %t1_kernel_1) : (tensor<f32>, tensor<f32>) -> ()
  }
}
