module @hofuse {
  // k1_kernel : (f64, f64) = rnz (\a b -> (fst a + fst b, snd a + snd b)) (\x -> (x, x * x)) v
  func.func @k1_kernel(%v: tensor<9xf64>) -> (tensor<f64>, tensor<f64>) {
    %0 = "stablehlo.multiply"(%v, %v) : (tensor<9xf64>, tensor<9xf64>) -> tensor<9xf64>
    %1 = "stablehlo.constant"() { value = dense<0.0> : tensor<f64> } : () -> tensor<f64>
    %2 = "stablehlo.constant"() { value = dense<0.0> : tensor<f64> } : () -> tensor<f64>
    %5, %6 = "stablehlo.reduce"(%v, %0, %1, %2) ({
      ^reductionFn(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>, %arg3: tensor<f64>) :
          %3 = "stablehlo.add"(%arg0, %arg2) : (tensor<f64>, tensor<f64>) -> tensor<f64>
          %4 = "stablehlo.add"(%arg1, %arg3) : (tensor<f64>, tensor<f64>) -> tensor<f64>
          "stablehlo.return"(%3, %4) : (tensor<f64>, tensor<f64>) -> ()
    }) { dimensions = array<i64: 0> } : (tensor<9xf64>, tensor<9xf64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    "func.return"(%5, %6) : (tensor<f64>, tensor<f64>) -> ()
  }

  func.func @main(%v: tensor<9xf64>) -> (tensor<f64>, tensor<f64>) {
    %t1_kernel_0, %t1_kernel_1 = "func.call"(%v) {callee = @k1_kernel} : (tensor<9xf64>) -> (tensor<f64>, tensor<f64>) loc("k1_kernel")
    "func.return"(%t1_kernel_0, %t1_kernel_1) : (tensor<f64>, tensor<f64>) -> ()
  }
}
