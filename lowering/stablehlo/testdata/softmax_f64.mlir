module @hofuse {
  // k1_softmax1 : f64[3,7] = map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) x
  // sources: softmax1
  func.func @k1_softmax1(%x: tensor<3x7xf64>) -> tensor<3x7xf64> {
    %0 = "stablehlo.constant"() { value = dense<0xfff0000000000000> : tensor<f64> } : () -> tensor<f64> loc("softmax1")
    %11 = "stablehlo.reduce"(%x, %0) ({
      ^reductionFn(%arg0: tensor<f64>, %arg1: tensor<f64>) :
          %1 = "stablehlo.compare"(%arg0, %arg1) {
            compare_type = #stablehlo<comparison_type FLOAT>,
            comparison_direction = #stablehlo<comparison_direction EQ>
          } : (tensor<f64>, tensor<f64>) -> tensor<i1>
          %2 = "stablehlo.subtract"(%arg0, %arg0) : (tensor<f64>, tensor<f64>) -> tensor<f64>
          %3 = "stablehlo.compare"(%arg0, %2) {
            compare_type = #stablehlo<comparison_type FLOAT>,
            comparison_direction = #stablehlo<comparison_direction EQ>
          } : (tensor<f64>, tensor<f64>) -> tensor<i1>
          %4 = "stablehlo.and"(%1, %3) : (tensor<i1>, tensor<i1>) -> tensor<i1>
          %5 = "stablehlo.add"(%arg0, %arg1) : (tensor<f64>, tensor<f64>) -> tensor<f64>
          %6 = "stablehlo.compare"(%arg0, %arg1) {
            compare_type = #stablehlo<comparison_type FLOAT>,
            comparison_direction = #stablehlo<comparison_direction GT>
          } : (tensor<f64>, tensor<f64>) -> tensor<i1>
          %7 = "stablehlo.compare"(%arg0, %arg0) {
            compare_type = #stablehlo<comparison_type FLOAT>,
            comparison_direction = #stablehlo<comparison_direction NE>
          } : (tensor<f64>, tensor<f64>) -> tensor<i1>
          %8 = "stablehlo.or"(%6, %7) : (tensor<i1>, tensor<i1>) -> tensor<i1>
          %9 = "stablehlo.select"(%8, %arg0, %arg1) : (tensor<i1>, tensor<f64>, tensor<f64>) -> tensor<f64>
          %10 = "stablehlo.select"(%4, %5, %9) : (tensor<i1>, tensor<f64>, tensor<f64>) -> tensor<f64>
          "stablehlo.return"(%10) : (tensor<f64>) -> ()
    }) { dimensions = array<i64: 1> } : (tensor<3x7xf64>, tensor<f64>) -> tensor<3xf64> loc("softmax1")
    %12 = "stablehlo.broadcast_in_dim"(%11) { broadcast_dimensions = array<i64: 0> } : (tensor<3xf64>) -> tensor<3x7xf64> loc("softmax1")
    %13 = "stablehlo.subtract"(%x, %12) : (tensor<3x7xf64>, tensor<3x7xf64>) -> tensor<3x7xf64> loc("softmax1")
    %14 = "stablehlo.exponential"(%13) : (tensor<3x7xf64>) -> tensor<3x7xf64> loc("softmax1")
    %15 = "stablehlo.constant"() { value = dense<0.0> : tensor<f64> } : () -> tensor<f64> loc("softmax1")
    %17 = "stablehlo.reduce"(%14, %15) ({
      ^reductionFn(%arg2: tensor<f64>, %arg3: tensor<f64>) :
          %16 = "stablehlo.add"(%arg2, %arg3) : (tensor<f64>, tensor<f64>) -> tensor<f64>
          "stablehlo.return"(%16) : (tensor<f64>) -> ()
    }) { dimensions = array<i64: 1> } : (tensor<3x7xf64>, tensor<f64>) -> tensor<3xf64> loc("softmax1")
    %18 = "stablehlo.broadcast_in_dim"(%11) { broadcast_dimensions = array<i64: 0> } : (tensor<3xf64>) -> tensor<3x7xf64> loc("softmax1")
    %19 = "stablehlo.subtract"(%x, %18) : (tensor<3x7xf64>, tensor<3x7xf64>) -> tensor<3x7xf64> loc("softmax1")
    %20 = "stablehlo.exponential"(%19) : (tensor<3x7xf64>) -> tensor<3x7xf64> loc("softmax1")
    %21 = "stablehlo.broadcast_in_dim"(%17) { broadcast_dimensions = array<i64: 0> } : (tensor<3xf64>) -> tensor<3x7xf64> loc("softmax1")
    %22 = "stablehlo.divide"(%20, %21) : (tensor<3x7xf64>, tensor<3x7xf64>) -> tensor<3x7xf64> loc("softmax1")
    "func.return"(%22) : (tensor<3x7xf64>) -> ()
  }

  func.func @main(%x: tensor<3x7xf64>) -> tensor<3x7xf64> {
    %t1_softmax1 = "func.call"(%x) {callee = @k1_softmax1} : (tensor<3x7xf64>) -> tensor<3x7xf64> loc("k1_softmax1")
    "func.return"(%t1_softmax1) : (tensor<3x7xf64>) -> ()
  }
}
