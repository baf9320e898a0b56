module @hofuse {
  // k1_softmax1 : f64[3,7] = map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) x
  // sources: softmax1
  func.func @k1_softmax1(%x: tensor<3x7xf64>) -> tensor<3x7xf64> {
    %0 = "stablehlo.constant"() { value = dense<0xfff0000000000000> : tensor<f64> } : () -> tensor<f64> loc("softmax1")
    %2 = "stablehlo.reduce"(%x, %0) ({
      ^reductionFn(%arg0: tensor<f64>, %arg1: tensor<f64>) :
          %1 = "stablehlo.maximum"(%arg0, %arg1) : (tensor<f64>, tensor<f64>) -> tensor<f64>
          "stablehlo.return"(%1) : (tensor<f64>) -> ()
    }) { dimensions = array<i64: 1> } : (tensor<3x7xf64>, tensor<f64>) -> tensor<3xf64> loc("softmax1")
    %3 = "stablehlo.broadcast_in_dim"(%2) { broadcast_dimensions = array<i64: 0> } : (tensor<3xf64>) -> tensor<3x7xf64> loc("softmax1")
    %4 = "stablehlo.subtract"(%x, %3) : (tensor<3x7xf64>, tensor<3x7xf64>) -> tensor<3x7xf64> loc("softmax1")
    %5 = "stablehlo.exponential"(%4) : (tensor<3x7xf64>) -> tensor<3x7xf64> loc("softmax1")
    %6 = "stablehlo.constant"() { value = dense<0.0> : tensor<f64> } : () -> tensor<f64> loc("softmax1")
    %8 = "stablehlo.reduce"(%5, %6) ({
      ^reductionFn(%arg2: tensor<f64>, %arg3: tensor<f64>) :
          %7 = "stablehlo.add"(%arg2, %arg3) : (tensor<f64>, tensor<f64>) -> tensor<f64>
          "stablehlo.return"(%7) : (tensor<f64>) -> ()
    }) { dimensions = array<i64: 1> } : (tensor<3x7xf64>, tensor<f64>) -> tensor<3xf64> loc("softmax1")
    %9 = "stablehlo.broadcast_in_dim"(%2) { broadcast_dimensions = array<i64: 0> } : (tensor<3xf64>) -> tensor<3x7xf64> loc("softmax1")
    %10 = "stablehlo.subtract"(%x, %9) : (tensor<3x7xf64>, tensor<3x7xf64>) -> tensor<3x7xf64> loc("softmax1")
    %11 = "stablehlo.exponential"(%10) : (tensor<3x7xf64>) -> tensor<3x7xf64> loc("softmax1")
    %12 = "stablehlo.broadcast_in_dim"(%8) { broadcast_dimensions = array<i64: 0> } : (tensor<3xf64>) -> tensor<3x7xf64> loc("softmax1")
    %13 = "stablehlo.divide"(%11, %12) : (tensor<3x7xf64>, tensor<3x7xf64>) -> tensor<3x7xf64> loc("softmax1")
    "func.return"(%13) : (tensor<3x7xf64>) -> ()
  }

  func.func @main(%x: tensor<3x7xf64>) -> tensor<3x7xf64> {
    %t1_softmax1 = "func.call"(%x) {callee = @k1_softmax1} : (tensor<3x7xf64>) -> tensor<3x7xf64> loc("k1_softmax1")
    "func.return"(%t1_softmax1) : (tensor<3x7xf64>) -> ()
  }
}
