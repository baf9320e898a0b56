module @hofuse {
  // k1_softmax1 : f32[3,7] = map (\r -> let m = reduce max r in let s = rnz (+) (\v -> exp (v - m)) r in map (\v -> exp (v - m) / s) r) x
  // sources: softmax1
  func.func @k1_softmax1(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %0 = "stablehlo.constant"() { value = dense<0xff800000> : tensor<f32> } : () -> tensor<f32> loc("softmax1")
    %11 = "stablehlo.reduce"(%x, %0) ({
      ^reductionFn(%arg0: tensor<f32>, %arg1: tensor<f32>) :
          %1 = "stablehlo.compare"(%arg0, %arg1) {
            compare_type = #stablehlo<comparison_type FLOAT>,
            comparison_direction = #stablehlo<comparison_direction EQ>
          } : (tensor<f32>, tensor<f32>) -> tensor<i1>
          %2 = "stablehlo.subtract"(%arg0, %arg0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          %3 = "stablehlo.compare"(%arg0, %2) {
            compare_type = #stablehlo<comparison_type FLOAT>,
            comparison_direction = #stablehlo<comparison_direction EQ>
          } : (tensor<f32>, tensor<f32>) -> tensor<i1>
          %4 = "stablehlo.and"(%1, %3) : (tensor<i1>, tensor<i1>) -> tensor<i1>
          %5 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          %6 = "stablehlo.compare"(%arg0, %arg1) {
            compare_type = #stablehlo<comparison_type FLOAT>,
            comparison_direction = #stablehlo<comparison_direction GT>
          } : (tensor<f32>, tensor<f32>) -> tensor<i1>
          %7 = "stablehlo.compare"(%arg0, %arg0) {
            compare_type = #stablehlo<comparison_type FLOAT>,
            comparison_direction = #stablehlo<comparison_direction NE>
          } : (tensor<f32>, tensor<f32>) -> tensor<i1>
          %8 = "stablehlo.or"(%6, %7) : (tensor<i1>, tensor<i1>) -> tensor<i1>
          %9 = "stablehlo.select"(%8, %arg0, %arg1) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
          %10 = "stablehlo.select"(%4, %5, %9) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%10) : (tensor<f32>) -> ()
    }) { dimensions = array<i64: 1> } : (tensor<3x7xf32>, tensor<f32>) -> tensor<3xf32> loc("softmax1")
    %12 = "stablehlo.broadcast_in_dim"(%11) { broadcast_dimensions = array<i64: 0> } : (tensor<3xf32>) -> tensor<3x7xf32> loc("softmax1")
    %13 = "stablehlo.subtract"(%x, %12) : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32> loc("softmax1")
    %14 = "stablehlo.exponential"(%13) : (tensor<3x7xf32>) -> tensor<3x7xf32> loc("softmax1")
    %15 = "stablehlo.constant"() { value = dense<0x7f800000> : tensor<f32> } : () -> tensor<f32> loc("softmax1")
    %16 = "stablehlo.broadcast_in_dim"(%15) { broadcast_dimensions = array<i64> } : (tensor<f32>) -> tensor<3x7xf32> loc("softmax1")
    %17 = "stablehlo.compare"(%13, %16) {
      compare_type = #stablehlo<comparison_type FLOAT>,
      comparison_direction = #stablehlo<comparison_direction EQ>
    } : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1> loc("softmax1")
    %18 = "stablehlo.select"(%17, %16, %14) : (tensor<3x7xi1>, tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32> loc("softmax1")
    %19 = "stablehlo.constant"() { value = dense<0.0> : tensor<f32> } : () -> tensor<f32> loc("softmax1")
    %21 = "stablehlo.reduce"(%18, %19) ({
      ^reductionFn(%arg2: tensor<f32>, %arg3: tensor<f32>) :
          %20 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
          "stablehlo.return"(%20) : (tensor<f32>) -> ()
    }) { dimensions = array<i64: 1> } : (tensor<3x7xf32>, tensor<f32>) -> tensor<3xf32> loc("softmax1")
    %22 = "stablehlo.broadcast_in_dim"(%11) { broadcast_dimensions = array<i64: 0> } : (tensor<3xf32>) -> tensor<3x7xf32> loc("softmax1")
    %23 = "stablehlo.subtract"(%x, %22) : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32> loc("softmax1")
    %24 = "stablehlo.exponential"(%23) : (tensor<3x7xf32>) -> tensor<3x7xf32> loc("softmax1")
    %25 = "stablehlo.constant"() { value = dense<0x7f800000> : tensor<f32> } : () -> tensor<f32> loc("softmax1")
    %26 = "stablehlo.broadcast_in_dim"(%25) { broadcast_dimensions = array<i64> } : (tensor<f32>) -> tensor<3x7xf32> loc("softmax1")
    %27 = "stablehlo.compare"(%23, %26) {
      compare_type = #stablehlo<comparison_type FLOAT>,
      comparison_direction = #stablehlo<comparison_direction EQ>
    } : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1> loc("softmax1")
    %28 = "stablehlo.select"(%27, %26, %24) : (tensor<3x7xi1>, tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32> loc("softmax1")
    %29 = "stablehlo.broadcast_in_dim"(%21) { broadcast_dimensions = array<i64: 0> } : (tensor<3xf32>) -> tensor<3x7xf32> loc("softmax1")
    %30 = "stablehlo.divide"(%28, %29) : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32> loc("softmax1")
    "func.return"(%30) : (tensor<3x7xf32>) -> ()
  }

  func.func @main(%x: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %t1_softmax1 = "func.call"(%x) {callee = @k1_softmax1} : (tensor<3x7xf32>) -> tensor<3x7xf32> loc("k1_softmax1")
    "func.return"(%t1_softmax1) : (tensor<3x7xf32>) -> ()
  }
}
