// jax 0.10.2: written by jax_step.py in this folder
module @jit_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<16xf32>, %arg3: tensor<16xf32>, %arg4: tensor<3x3x1x8xf32>, %arg5: tensor<3x3x8x16xf32>, %arg6: tensor<64x10xf32>, %arg7: tensor<10xf32>, %arg8: tensor<8xf32>, %arg9: tensor<8xf32>, %arg10: tensor<16xf32>, %arg11: tensor<16xf32>, %arg12: tensor<3x3x1x8xf32>, %arg13: tensor<3x3x8x16xf32>, %arg14: tensor<64x10xf32>, %arg15: tensor<10xf32>, %arg16: tensor<8xf32>, %arg17: tensor<8xf32>, %arg18: tensor<16xf32>, %arg19: tensor<16xf32>, %arg20: tensor<3x3x1x8xf32>, %arg21: tensor<3x3x8x16xf32>, %arg22: tensor<64x10xf32>, %arg23: tensor<10xf32>, %arg24: tensor<8xf32>, %arg25: tensor<8xf32>, %arg26: tensor<16xf32>, %arg27: tensor<16xf32>, %arg28: tensor<128x64xf32>, %arg29: tensor<128xi32>, %arg30: tensor<f32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]['bn1.scale']"}, tensor<8xf32> {jax.result_info = "result[1]['bn1.shift']"}, tensor<16xf32> {jax.result_info = "result[1]['bn2.scale']"}, tensor<16xf32> {jax.result_info = "result[1]['bn2.shift']"}, tensor<3x3x1x8xf32> {jax.result_info = "result[1]['conv1.K']"}, tensor<3x3x8x16xf32> {jax.result_info = "result[1]['conv2.K']"}, tensor<64x10xf32> {jax.result_info = "result[1]['dense.W']"}, tensor<10xf32> {jax.result_info = "result[1]['dense.b']"}, tensor<8xf32> {jax.result_info = "result[2]['bn1.scale']"}, tensor<8xf32> {jax.result_info = "result[2]['bn1.shift']"}, tensor<16xf32> {jax.result_info = "result[2]['bn2.scale']"}, tensor<16xf32> {jax.result_info = "result[2]['bn2.shift']"}, tensor<3x3x1x8xf32> {jax.result_info = "result[2]['conv1.K']"}, tensor<3x3x8x16xf32> {jax.result_info = "result[2]['conv2.K']"}, tensor<64x10xf32> {jax.result_info = "result[2]['dense.W']"}, tensor<10xf32> {jax.result_info = "result[2]['dense.b']"}, tensor<8xf32> {jax.result_info = "result[3]['bn1.scale']"}, tensor<8xf32> {jax.result_info = "result[3]['bn1.shift']"}, tensor<16xf32> {jax.result_info = "result[3]['bn2.scale']"}, tensor<16xf32> {jax.result_info = "result[3]['bn2.shift']"}, tensor<3x3x1x8xf32> {jax.result_info = "result[3]['conv1.K']"}, tensor<3x3x8x16xf32> {jax.result_info = "result[3]['conv2.K']"}, tensor<64x10xf32> {jax.result_info = "result[3]['dense.W']"}, tensor<10xf32> {jax.result_info = "result[3]['dense.b']"}, tensor<8xf32> {jax.result_info = "result[4]['bn1.mean']"}, tensor<8xf32> {jax.result_info = "result[4]['bn1.var']"}, tensor<16xf32> {jax.result_info = "result[4]['bn2.mean']"}, tensor<16xf32> {jax.result_info = "result[4]['bn2.var']"}) {
    %0 = stablehlo.reshape %arg28 : (tensor<128x64xf32>) -> tensor<128x8x8x1xf32>
    %1 = stablehlo.convolution(%0, %arg4) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<128x8x8x1xf32>, tensor<3x3x1x8xf32>) -> tensor<128x8x8x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_0 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %4 = stablehlo.divide %2, %3 : tensor<8xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<128x8x8x8xf32>
    %7 = stablehlo.subtract %1, %6 : tensor<128x8x8x8xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<128x8x8x8xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<128x8x8x8xf32>
    %10 = stablehlo.multiply %9, %7 : tensor<128x8x8x8xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%8 init: %cst_2) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_3 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %13 = stablehlo.divide %11, %12 : tensor<8xf32>
    %14 = stablehlo.broadcast_in_dim %4, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<128x8x8x8xf32>
    %16 = stablehlo.subtract %1, %15 : tensor<128x8x8x8xf32>
    %cst_4 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %18 = stablehlo.add %13, %17 : tensor<8xf32>
    %19 = stablehlo.rsqrt %18 : tensor<8xf32>
    %20 = stablehlo.divide %19, %18 : tensor<8xf32>
    %cst_5 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %22 = stablehlo.multiply %21, %20 : tensor<8xf32>
    %23 = stablehlo.broadcast_in_dim %19, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<128x8x8x8xf32>
    %25 = stablehlo.multiply %16, %24 : tensor<128x8x8x8xf32>
    %26 = stablehlo.broadcast_in_dim %arg0, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<128x8x8x8xf32>
    %28 = stablehlo.multiply %25, %27 : tensor<128x8x8x8xf32>
    %29 = stablehlo.broadcast_in_dim %arg1, dims = [3] : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<128x8x8x8xf32>
    %31 = stablehlo.add %28, %30 : tensor<128x8x8x8xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<128x8x8x8xf32>
    %33 = stablehlo.maximum %31, %32 : tensor<128x8x8x8xf32>
    %34 = stablehlo.compare EQ, %31, %33, FLOAT : (tensor<128x8x8x8xf32>, tensor<128x8x8x8xf32>) -> tensor<128x8x8x8xi1>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<128x8x8x8xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<128x8x8x8xf32>
    %37 = stablehlo.select %34, %35, %36 : tensor<128x8x8x8xi1>, tensor<128x8x8x8xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<128x8x8x8xf32>
    %39 = stablehlo.compare EQ, %38, %33, FLOAT : (tensor<128x8x8x8xf32>, tensor<128x8x8x8xf32>) -> tensor<128x8x8x8xi1>
    %cst_10 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<128x8x8x8xf32>
    %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<128x8x8x8xf32>
    %42 = stablehlo.select %39, %40, %41 : tensor<128x8x8x8xi1>, tensor<128x8x8x8xf32>
    %43 = stablehlo.divide %37, %42 : tensor<128x8x8x8xf32>
    %cst_12 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<f32>
    %45 = "stablehlo.reduce_window"(%33, %44) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %398 = stablehlo.maximum %arg31, %arg32 : tensor<f32>
      stablehlo.return %398 : tensor<f32>
    }) : (tensor<128x8x8x8xf32>, tensor<f32>) -> tensor<128x4x4x8xf32>
    %46 = stablehlo.convolution(%45, %arg5) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<128x4x4x8xf32>, tensor<3x3x8x16xf32>) -> tensor<128x4x4x16xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %47 = stablehlo.reduce(%46 init: %cst_13) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_14 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %49 = stablehlo.divide %47, %48 : tensor<16xf32>
    %50 = stablehlo.broadcast_in_dim %49, dims = [3] : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<128x4x4x16xf32>
    %52 = stablehlo.subtract %46, %51 : tensor<128x4x4x16xf32>
    %53 = stablehlo.multiply %52, %52 : tensor<128x4x4x16xf32>
    %cst_15 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<128x4x4x16xf32>
    %55 = stablehlo.multiply %54, %52 : tensor<128x4x4x16xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %56 = stablehlo.reduce(%53 init: %cst_16) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_17 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %58 = stablehlo.divide %56, %57 : tensor<16xf32>
    %59 = stablehlo.broadcast_in_dim %49, dims = [3] : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<128x4x4x16xf32>
    %61 = stablehlo.subtract %46, %60 : tensor<128x4x4x16xf32>
    %cst_18 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %63 = stablehlo.add %58, %62 : tensor<16xf32>
    %64 = stablehlo.rsqrt %63 : tensor<16xf32>
    %65 = stablehlo.divide %64, %63 : tensor<16xf32>
    %cst_19 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %67 = stablehlo.multiply %66, %65 : tensor<16xf32>
    %68 = stablehlo.broadcast_in_dim %64, dims = [3] : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<128x4x4x16xf32>
    %70 = stablehlo.multiply %61, %69 : tensor<128x4x4x16xf32>
    %71 = stablehlo.broadcast_in_dim %arg2, dims = [3] : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<128x4x4x16xf32>
    %73 = stablehlo.multiply %70, %72 : tensor<128x4x4x16xf32>
    %74 = stablehlo.broadcast_in_dim %arg3, dims = [3] : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %75 = stablehlo.broadcast_in_dim %74, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<128x4x4x16xf32>
    %76 = stablehlo.add %73, %75 : tensor<128x4x4x16xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %77 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<128x4x4x16xf32>
    %78 = stablehlo.maximum %76, %77 : tensor<128x4x4x16xf32>
    %79 = stablehlo.compare EQ, %76, %78, FLOAT : (tensor<128x4x4x16xf32>, tensor<128x4x4x16xf32>) -> tensor<128x4x4x16xi1>
    %cst_21 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %80 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<128x4x4x16xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<128x4x4x16xf32>
    %82 = stablehlo.select %79, %80, %81 : tensor<128x4x4x16xi1>, tensor<128x4x4x16xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<128x4x4x16xf32>
    %84 = stablehlo.compare EQ, %83, %78, FLOAT : (tensor<128x4x4x16xf32>, tensor<128x4x4x16xf32>) -> tensor<128x4x4x16xi1>
    %cst_24 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<128x4x4x16xf32>
    %cst_25 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %86 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<128x4x4x16xf32>
    %87 = stablehlo.select %84, %85, %86 : tensor<128x4x4x16xi1>, tensor<128x4x4x16xf32>
    %88 = stablehlo.divide %82, %87 : tensor<128x4x4x16xf32>
    %cst_26 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<f32>
    %90 = "stablehlo.reduce_window"(%78, %89) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %398 = stablehlo.maximum %arg31, %arg32 : tensor<f32>
      stablehlo.return %398 : tensor<f32>
    }) : (tensor<128x4x4x16xf32>, tensor<f32>) -> tensor<128x2x2x16xf32>
    %91 = stablehlo.reshape %90 : (tensor<128x2x2x16xf32>) -> tensor<128x64xf32>
    %92 = stablehlo.dot_general %91, %arg6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x64xf32>, tensor<64x10xf32>) -> tensor<128x10xf32>
    %93 = stablehlo.broadcast_in_dim %arg7, dims = [1] : (tensor<10xf32>) -> tensor<1x10xf32>
    %94 = stablehlo.broadcast_in_dim %93, dims = [0, 1] : (tensor<1x10xf32>) -> tensor<128x10xf32>
    %95 = stablehlo.add %92, %94 : tensor<128x10xf32>
    %96:3 = call @log_softmax(%95) : (tensor<128x10xf32>) -> (tensor<128x10xf32>, tensor<128x10xf32>, tensor<128x1xf32>)
    %97 = stablehlo.broadcast_in_dim %arg29, dims = [0] : (tensor<128xi32>) -> tensor<128x1xi32>
    %98:2 = call @take_along_axis(%96#0, %97) : (tensor<128x10xf32>, tensor<128x1xi32>) -> (tensor<128x1xf32>, tensor<128x1x1xi32>)
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %99 = stablehlo.reduce(%98#0 init: %cst_27) applies stablehlo.add across dimensions = [0, 1] : (tensor<128x1xf32>, tensor<f32>) -> tensor<f32>
    %cst_28 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %100 = stablehlo.divide %99, %cst_28 : tensor<f32>
    %101 = stablehlo.negate %100 : tensor<f32>
    %cst_29 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %102 = stablehlo.negate %cst_29 : tensor<f32>
    %cst_30 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %103 = stablehlo.divide %102, %cst_30 : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %103, dims = [] : (tensor<f32>) -> tensor<128x1xf32>
    %105 = call @take_along_axis_0(%98#1, %104) : (tensor<128x1x1xi32>, tensor<128x1xf32>) -> tensor<128x10xf32>
    %106 = call @log_softmax_1(%96#1, %96#2, %105) : (tensor<128x10xf32>, tensor<128x1xf32>, tensor<128x10xf32>) -> tensor<128x10xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %107 = stablehlo.reduce(%106 init: %cst_31) applies stablehlo.add across dimensions = [0] : (tensor<128x10xf32>, tensor<f32>) -> tensor<10xf32>
    %108 = stablehlo.reshape %107 : (tensor<10xf32>) -> tensor<1x10xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %109 = stablehlo.reduce(%108 init: %cst_32) applies stablehlo.add across dimensions = [0] : (tensor<1x10xf32>, tensor<f32>) -> tensor<10xf32>
    %110 = stablehlo.dot_general %106, %91, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x10xf32>, tensor<128x64xf32>) -> tensor<10x64xf32>
    %111 = stablehlo.transpose %110, dims = [1, 0] : (tensor<10x64xf32>) -> tensor<64x10xf32>
    %112 = stablehlo.dot_general %106, %arg6, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<128x10xf32>, tensor<64x10xf32>) -> tensor<128x64xf32>
    %113 = stablehlo.reshape %112 : (tensor<128x64xf32>) -> tensor<128x2x2x16xf32>
    %cst_33 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %114 = stablehlo.pad %78, %cst_33, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<128x4x4x16xf32>, tensor<f32>) -> tensor<128x4x4x16xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %115 = "stablehlo.select_and_scatter"(%114, %113, %cst_34) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %398 = stablehlo.compare GE, %arg31, %arg32, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %398 : tensor<i1>
    }, {
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %398 = stablehlo.add %arg31, %arg32 : tensor<f32>
      stablehlo.return %398 : tensor<f32>
    }) : (tensor<128x4x4x16xf32>, tensor<128x2x2x16xf32>, tensor<f32>) -> tensor<128x4x4x16xf32>
    %116 = stablehlo.slice %115 [0:128, 0:4, 0:4, 0:16] : (tensor<128x4x4x16xf32>) -> tensor<128x4x4x16xf32>
    %117 = stablehlo.multiply %116, %88 : tensor<128x4x4x16xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %118 = stablehlo.reduce(%117 init: %cst_35) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %119 = stablehlo.reshape %118 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %120 = stablehlo.reduce(%119 init: %cst_36) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %121 = stablehlo.multiply %70, %117 : tensor<128x4x4x16xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %122 = stablehlo.reduce(%121 init: %cst_37) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %123 = stablehlo.reshape %122 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %124 = stablehlo.broadcast_in_dim %71, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<128x4x4x16xf32>
    %125 = stablehlo.multiply %117, %124 : tensor<128x4x4x16xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %126 = stablehlo.reduce(%123 init: %cst_38) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %127 = stablehlo.multiply %61, %125 : tensor<128x4x4x16xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %128 = stablehlo.reduce(%127 init: %cst_39) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %129 = stablehlo.reshape %128 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %130 = stablehlo.broadcast_in_dim %68, dims = [0, 1, 2, 3] : (tensor<1x1x1x16xf32>) -> tensor<128x4x4x16xf32>
    %131 = stablehlo.multiply %125, %130 : tensor<128x4x4x16xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %132 = stablehlo.reduce(%129 init: %cst_40) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %133 = stablehlo.multiply %132, %67 : tensor<16xf32>
    %134 = stablehlo.negate %131 : tensor<128x4x4x16xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %135 = stablehlo.reduce(%134 init: %cst_41) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %136 = stablehlo.reshape %135 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %137 = stablehlo.reduce(%136 init: %cst_42) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %cst_43 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %139 = stablehlo.divide %133, %138 : tensor<16xf32>
    %140 = stablehlo.broadcast_in_dim %139, dims = [3] : (tensor<16xf32>) -> tensor<128x4x4x16xf32>
    %141 = stablehlo.multiply %140, %55 : tensor<128x4x4x16xf32>
    %142 = stablehlo.negate %141 : tensor<128x4x4x16xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %143 = stablehlo.reduce(%142 init: %cst_44) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x4x4x16xf32>, tensor<f32>) -> tensor<16xf32>
    %144 = stablehlo.reshape %143 : (tensor<16xf32>) -> tensor<1x1x1x16xf32>
    %145 = stablehlo.add %131, %141 : tensor<128x4x4x16xf32>
    %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %146 = stablehlo.reduce(%144 init: %cst_45) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %147 = stablehlo.add %137, %146 : tensor<16xf32>
    %cst_46 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %148 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %149 = stablehlo.divide %147, %148 : tensor<16xf32>
    %150 = stablehlo.broadcast_in_dim %149, dims = [3] : (tensor<16xf32>) -> tensor<128x4x4x16xf32>
    %151 = stablehlo.add %145, %150 : tensor<128x4x4x16xf32>
    %152 = stablehlo.convolution(%45, %151) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<128x4x4x8xf32>, tensor<128x4x4x16xf32>) -> tensor<3x3x8x16xf32>
    %153 = stablehlo.reverse %arg5, dims = [0, 1] : tensor<3x3x8x16xf32>
    %154 = stablehlo.convolution(%151, %153) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<128x4x4x16xf32>, tensor<3x3x8x16xf32>) -> tensor<128x4x4x8xf32>
    %cst_47 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %155 = stablehlo.pad %33, %cst_47, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<128x8x8x8xf32>, tensor<f32>) -> tensor<128x8x8x8xf32>
    %cst_48 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %156 = "stablehlo.select_and_scatter"(%155, %154, %cst_48) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %398 = stablehlo.compare GE, %arg31, %arg32, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %398 : tensor<i1>
    }, {
    ^bb0(%arg31: tensor<f32>, %arg32: tensor<f32>):
      %398 = stablehlo.add %arg31, %arg32 : tensor<f32>
      stablehlo.return %398 : tensor<f32>
    }) : (tensor<128x8x8x8xf32>, tensor<128x4x4x8xf32>, tensor<f32>) -> tensor<128x8x8x8xf32>
    %157 = stablehlo.slice %156 [0:128, 0:8, 0:8, 0:8] : (tensor<128x8x8x8xf32>) -> tensor<128x8x8x8xf32>
    %158 = stablehlo.multiply %157, %43 : tensor<128x8x8x8xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %159 = stablehlo.reduce(%158 init: %cst_49) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %160 = stablehlo.reshape %159 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %161 = stablehlo.reduce(%160 init: %cst_50) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %162 = stablehlo.multiply %25, %158 : tensor<128x8x8x8xf32>
    %cst_51 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %163 = stablehlo.reduce(%162 init: %cst_51) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %164 = stablehlo.reshape %163 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %165 = stablehlo.broadcast_in_dim %26, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<128x8x8x8xf32>
    %166 = stablehlo.multiply %158, %165 : tensor<128x8x8x8xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %167 = stablehlo.reduce(%164 init: %cst_52) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %168 = stablehlo.multiply %16, %166 : tensor<128x8x8x8xf32>
    %cst_53 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %169 = stablehlo.reduce(%168 init: %cst_53) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %170 = stablehlo.reshape %169 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %171 = stablehlo.broadcast_in_dim %23, dims = [0, 1, 2, 3] : (tensor<1x1x1x8xf32>) -> tensor<128x8x8x8xf32>
    %172 = stablehlo.multiply %166, %171 : tensor<128x8x8x8xf32>
    %cst_54 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %173 = stablehlo.reduce(%170 init: %cst_54) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %174 = stablehlo.multiply %173, %22 : tensor<8xf32>
    %175 = stablehlo.negate %172 : tensor<128x8x8x8xf32>
    %cst_55 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %176 = stablehlo.reduce(%175 init: %cst_55) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %177 = stablehlo.reshape %176 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %cst_56 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %178 = stablehlo.reduce(%177 init: %cst_56) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_57 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %179 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %180 = stablehlo.divide %174, %179 : tensor<8xf32>
    %181 = stablehlo.broadcast_in_dim %180, dims = [3] : (tensor<8xf32>) -> tensor<128x8x8x8xf32>
    %182 = stablehlo.multiply %181, %10 : tensor<128x8x8x8xf32>
    %183 = stablehlo.negate %182 : tensor<128x8x8x8xf32>
    %cst_58 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %184 = stablehlo.reduce(%183 init: %cst_58) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<128x8x8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %185 = stablehlo.reshape %184 : (tensor<8xf32>) -> tensor<1x1x1x8xf32>
    %186 = stablehlo.add %172, %182 : tensor<128x8x8x8xf32>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %187 = stablehlo.reduce(%185 init: %cst_59) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<1x1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %188 = stablehlo.add %178, %187 : tensor<8xf32>
    %cst_60 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %189 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %190 = stablehlo.divide %188, %189 : tensor<8xf32>
    %191 = stablehlo.broadcast_in_dim %190, dims = [3] : (tensor<8xf32>) -> tensor<128x8x8x8xf32>
    %192 = stablehlo.add %186, %191 : tensor<128x8x8x8xf32>
    %193 = stablehlo.convolution(%0, %192) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<128x8x8x1xf32>, tensor<128x8x8x8xf32>) -> tensor<3x3x1x8xf32>
    %cst_61 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %194 = stablehlo.power %cst_61, %arg30 : tensor<f32>
    %cst_62 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %195 = stablehlo.subtract %cst_62, %194 : tensor<f32>
    %cst_63 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %196 = stablehlo.power %cst_63, %arg30 : tensor<f32>
    %cst_64 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %197 = stablehlo.subtract %cst_64, %196 : tensor<f32>
    %cst_65 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %198 = stablehlo.broadcast_in_dim %cst_65, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %199 = stablehlo.multiply %198, %arg8 : tensor<8xf32>
    %cst_66 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %200 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %201 = stablehlo.multiply %200, %167 : tensor<8xf32>
    %202 = stablehlo.add %199, %201 : tensor<8xf32>
    %cst_67 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %203 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %204 = stablehlo.multiply %203, %arg16 : tensor<8xf32>
    %cst_68 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %205 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %206 = stablehlo.multiply %205, %167 : tensor<8xf32>
    %207 = stablehlo.multiply %206, %167 : tensor<8xf32>
    %208 = stablehlo.add %204, %207 : tensor<8xf32>
    %209 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %210 = stablehlo.divide %202, %209 : tensor<8xf32>
    %cst_69 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %211 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %212 = stablehlo.multiply %211, %210 : tensor<8xf32>
    %213 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %214 = stablehlo.divide %208, %213 : tensor<8xf32>
    %215 = stablehlo.sqrt %214 : tensor<8xf32>
    %cst_70 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %216 = stablehlo.broadcast_in_dim %cst_70, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %217 = stablehlo.add %215, %216 : tensor<8xf32>
    %218 = stablehlo.divide %212, %217 : tensor<8xf32>
    %219 = stablehlo.subtract %arg0, %218 : tensor<8xf32>
    %cst_71 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %220 = stablehlo.broadcast_in_dim %cst_71, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %221 = stablehlo.multiply %220, %arg9 : tensor<8xf32>
    %cst_72 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %222 = stablehlo.broadcast_in_dim %cst_72, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %223 = stablehlo.multiply %222, %161 : tensor<8xf32>
    %224 = stablehlo.add %221, %223 : tensor<8xf32>
    %cst_73 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %225 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %226 = stablehlo.multiply %225, %arg17 : tensor<8xf32>
    %cst_74 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %227 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %228 = stablehlo.multiply %227, %161 : tensor<8xf32>
    %229 = stablehlo.multiply %228, %161 : tensor<8xf32>
    %230 = stablehlo.add %226, %229 : tensor<8xf32>
    %231 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %232 = stablehlo.divide %224, %231 : tensor<8xf32>
    %cst_75 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %233 = stablehlo.broadcast_in_dim %cst_75, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %234 = stablehlo.multiply %233, %232 : tensor<8xf32>
    %235 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %236 = stablehlo.divide %230, %235 : tensor<8xf32>
    %237 = stablehlo.sqrt %236 : tensor<8xf32>
    %cst_76 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %238 = stablehlo.broadcast_in_dim %cst_76, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %239 = stablehlo.add %237, %238 : tensor<8xf32>
    %240 = stablehlo.divide %234, %239 : tensor<8xf32>
    %241 = stablehlo.subtract %arg1, %240 : tensor<8xf32>
    %cst_77 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %242 = stablehlo.broadcast_in_dim %cst_77, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %243 = stablehlo.multiply %242, %arg10 : tensor<16xf32>
    %cst_78 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %244 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %245 = stablehlo.multiply %244, %126 : tensor<16xf32>
    %246 = stablehlo.add %243, %245 : tensor<16xf32>
    %cst_79 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %247 = stablehlo.broadcast_in_dim %cst_79, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %248 = stablehlo.multiply %247, %arg18 : tensor<16xf32>
    %cst_80 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %249 = stablehlo.broadcast_in_dim %cst_80, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %250 = stablehlo.multiply %249, %126 : tensor<16xf32>
    %251 = stablehlo.multiply %250, %126 : tensor<16xf32>
    %252 = stablehlo.add %248, %251 : tensor<16xf32>
    %253 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %254 = stablehlo.divide %246, %253 : tensor<16xf32>
    %cst_81 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %255 = stablehlo.broadcast_in_dim %cst_81, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %256 = stablehlo.multiply %255, %254 : tensor<16xf32>
    %257 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %258 = stablehlo.divide %252, %257 : tensor<16xf32>
    %259 = stablehlo.sqrt %258 : tensor<16xf32>
    %cst_82 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %260 = stablehlo.broadcast_in_dim %cst_82, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %261 = stablehlo.add %259, %260 : tensor<16xf32>
    %262 = stablehlo.divide %256, %261 : tensor<16xf32>
    %263 = stablehlo.subtract %arg2, %262 : tensor<16xf32>
    %cst_83 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %264 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %265 = stablehlo.multiply %264, %arg11 : tensor<16xf32>
    %cst_84 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %266 = stablehlo.broadcast_in_dim %cst_84, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %267 = stablehlo.multiply %266, %120 : tensor<16xf32>
    %268 = stablehlo.add %265, %267 : tensor<16xf32>
    %cst_85 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %269 = stablehlo.broadcast_in_dim %cst_85, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %270 = stablehlo.multiply %269, %arg19 : tensor<16xf32>
    %cst_86 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %271 = stablehlo.broadcast_in_dim %cst_86, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %272 = stablehlo.multiply %271, %120 : tensor<16xf32>
    %273 = stablehlo.multiply %272, %120 : tensor<16xf32>
    %274 = stablehlo.add %270, %273 : tensor<16xf32>
    %275 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %276 = stablehlo.divide %268, %275 : tensor<16xf32>
    %cst_87 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %277 = stablehlo.broadcast_in_dim %cst_87, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %278 = stablehlo.multiply %277, %276 : tensor<16xf32>
    %279 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %280 = stablehlo.divide %274, %279 : tensor<16xf32>
    %281 = stablehlo.sqrt %280 : tensor<16xf32>
    %cst_88 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %282 = stablehlo.broadcast_in_dim %cst_88, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %283 = stablehlo.add %281, %282 : tensor<16xf32>
    %284 = stablehlo.divide %278, %283 : tensor<16xf32>
    %285 = stablehlo.subtract %arg3, %284 : tensor<16xf32>
    %cst_89 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %286 = stablehlo.broadcast_in_dim %cst_89, dims = [] : (tensor<f32>) -> tensor<3x3x1x8xf32>
    %287 = stablehlo.multiply %286, %arg12 : tensor<3x3x1x8xf32>
    %cst_90 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %288 = stablehlo.broadcast_in_dim %cst_90, dims = [] : (tensor<f32>) -> tensor<3x3x1x8xf32>
    %289 = stablehlo.multiply %288, %193 : tensor<3x3x1x8xf32>
    %290 = stablehlo.add %287, %289 : tensor<3x3x1x8xf32>
    %cst_91 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %291 = stablehlo.broadcast_in_dim %cst_91, dims = [] : (tensor<f32>) -> tensor<3x3x1x8xf32>
    %292 = stablehlo.multiply %291, %arg20 : tensor<3x3x1x8xf32>
    %cst_92 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %293 = stablehlo.broadcast_in_dim %cst_92, dims = [] : (tensor<f32>) -> tensor<3x3x1x8xf32>
    %294 = stablehlo.multiply %293, %193 : tensor<3x3x1x8xf32>
    %295 = stablehlo.multiply %294, %193 : tensor<3x3x1x8xf32>
    %296 = stablehlo.add %292, %295 : tensor<3x3x1x8xf32>
    %297 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<3x3x1x8xf32>
    %298 = stablehlo.divide %290, %297 : tensor<3x3x1x8xf32>
    %cst_93 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %299 = stablehlo.broadcast_in_dim %cst_93, dims = [] : (tensor<f32>) -> tensor<3x3x1x8xf32>
    %300 = stablehlo.multiply %299, %298 : tensor<3x3x1x8xf32>
    %301 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<3x3x1x8xf32>
    %302 = stablehlo.divide %296, %301 : tensor<3x3x1x8xf32>
    %303 = stablehlo.sqrt %302 : tensor<3x3x1x8xf32>
    %cst_94 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %304 = stablehlo.broadcast_in_dim %cst_94, dims = [] : (tensor<f32>) -> tensor<3x3x1x8xf32>
    %305 = stablehlo.add %303, %304 : tensor<3x3x1x8xf32>
    %306 = stablehlo.divide %300, %305 : tensor<3x3x1x8xf32>
    %307 = stablehlo.subtract %arg4, %306 : tensor<3x3x1x8xf32>
    %cst_95 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %308 = stablehlo.broadcast_in_dim %cst_95, dims = [] : (tensor<f32>) -> tensor<3x3x8x16xf32>
    %309 = stablehlo.multiply %308, %arg13 : tensor<3x3x8x16xf32>
    %cst_96 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %310 = stablehlo.broadcast_in_dim %cst_96, dims = [] : (tensor<f32>) -> tensor<3x3x8x16xf32>
    %311 = stablehlo.multiply %310, %152 : tensor<3x3x8x16xf32>
    %312 = stablehlo.add %309, %311 : tensor<3x3x8x16xf32>
    %cst_97 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %313 = stablehlo.broadcast_in_dim %cst_97, dims = [] : (tensor<f32>) -> tensor<3x3x8x16xf32>
    %314 = stablehlo.multiply %313, %arg21 : tensor<3x3x8x16xf32>
    %cst_98 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %315 = stablehlo.broadcast_in_dim %cst_98, dims = [] : (tensor<f32>) -> tensor<3x3x8x16xf32>
    %316 = stablehlo.multiply %315, %152 : tensor<3x3x8x16xf32>
    %317 = stablehlo.multiply %316, %152 : tensor<3x3x8x16xf32>
    %318 = stablehlo.add %314, %317 : tensor<3x3x8x16xf32>
    %319 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<3x3x8x16xf32>
    %320 = stablehlo.divide %312, %319 : tensor<3x3x8x16xf32>
    %cst_99 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %321 = stablehlo.broadcast_in_dim %cst_99, dims = [] : (tensor<f32>) -> tensor<3x3x8x16xf32>
    %322 = stablehlo.multiply %321, %320 : tensor<3x3x8x16xf32>
    %323 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<3x3x8x16xf32>
    %324 = stablehlo.divide %318, %323 : tensor<3x3x8x16xf32>
    %325 = stablehlo.sqrt %324 : tensor<3x3x8x16xf32>
    %cst_100 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %326 = stablehlo.broadcast_in_dim %cst_100, dims = [] : (tensor<f32>) -> tensor<3x3x8x16xf32>
    %327 = stablehlo.add %325, %326 : tensor<3x3x8x16xf32>
    %328 = stablehlo.divide %322, %327 : tensor<3x3x8x16xf32>
    %329 = stablehlo.subtract %arg5, %328 : tensor<3x3x8x16xf32>
    %cst_101 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %330 = stablehlo.broadcast_in_dim %cst_101, dims = [] : (tensor<f32>) -> tensor<64x10xf32>
    %331 = stablehlo.multiply %330, %arg14 : tensor<64x10xf32>
    %cst_102 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %332 = stablehlo.broadcast_in_dim %cst_102, dims = [] : (tensor<f32>) -> tensor<64x10xf32>
    %333 = stablehlo.multiply %332, %111 : tensor<64x10xf32>
    %334 = stablehlo.add %331, %333 : tensor<64x10xf32>
    %cst_103 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %335 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<64x10xf32>
    %336 = stablehlo.multiply %335, %arg22 : tensor<64x10xf32>
    %cst_104 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %337 = stablehlo.broadcast_in_dim %cst_104, dims = [] : (tensor<f32>) -> tensor<64x10xf32>
    %338 = stablehlo.multiply %337, %111 : tensor<64x10xf32>
    %339 = stablehlo.multiply %338, %111 : tensor<64x10xf32>
    %340 = stablehlo.add %336, %339 : tensor<64x10xf32>
    %341 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<64x10xf32>
    %342 = stablehlo.divide %334, %341 : tensor<64x10xf32>
    %cst_105 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %343 = stablehlo.broadcast_in_dim %cst_105, dims = [] : (tensor<f32>) -> tensor<64x10xf32>
    %344 = stablehlo.multiply %343, %342 : tensor<64x10xf32>
    %345 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<64x10xf32>
    %346 = stablehlo.divide %340, %345 : tensor<64x10xf32>
    %347 = stablehlo.sqrt %346 : tensor<64x10xf32>
    %cst_106 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %348 = stablehlo.broadcast_in_dim %cst_106, dims = [] : (tensor<f32>) -> tensor<64x10xf32>
    %349 = stablehlo.add %347, %348 : tensor<64x10xf32>
    %350 = stablehlo.divide %344, %349 : tensor<64x10xf32>
    %351 = stablehlo.subtract %arg6, %350 : tensor<64x10xf32>
    %cst_107 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %352 = stablehlo.broadcast_in_dim %cst_107, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %353 = stablehlo.multiply %352, %arg15 : tensor<10xf32>
    %cst_108 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %354 = stablehlo.broadcast_in_dim %cst_108, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %355 = stablehlo.multiply %354, %109 : tensor<10xf32>
    %356 = stablehlo.add %353, %355 : tensor<10xf32>
    %cst_109 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %357 = stablehlo.broadcast_in_dim %cst_109, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %358 = stablehlo.multiply %357, %arg23 : tensor<10xf32>
    %cst_110 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %359 = stablehlo.broadcast_in_dim %cst_110, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %360 = stablehlo.multiply %359, %109 : tensor<10xf32>
    %361 = stablehlo.multiply %360, %109 : tensor<10xf32>
    %362 = stablehlo.add %358, %361 : tensor<10xf32>
    %363 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %364 = stablehlo.divide %356, %363 : tensor<10xf32>
    %cst_111 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %365 = stablehlo.broadcast_in_dim %cst_111, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %366 = stablehlo.multiply %365, %364 : tensor<10xf32>
    %367 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %368 = stablehlo.divide %362, %367 : tensor<10xf32>
    %369 = stablehlo.sqrt %368 : tensor<10xf32>
    %cst_112 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %370 = stablehlo.broadcast_in_dim %cst_112, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %371 = stablehlo.add %369, %370 : tensor<10xf32>
    %372 = stablehlo.divide %366, %371 : tensor<10xf32>
    %373 = stablehlo.subtract %arg7, %372 : tensor<10xf32>
    %cst_113 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %374 = stablehlo.broadcast_in_dim %cst_113, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %375 = stablehlo.multiply %374, %arg24 : tensor<8xf32>
    %cst_114 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %376 = stablehlo.broadcast_in_dim %cst_114, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %377 = stablehlo.multiply %376, %4 : tensor<8xf32>
    %378 = stablehlo.add %375, %377 : tensor<8xf32>
    %cst_115 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %379 = stablehlo.broadcast_in_dim %cst_115, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %380 = stablehlo.multiply %379, %arg25 : tensor<8xf32>
    %cst_116 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %381 = stablehlo.broadcast_in_dim %cst_116, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %382 = stablehlo.multiply %381, %13 : tensor<8xf32>
    %cst_117 = stablehlo.constant dense<1.00012207> : tensor<f32>
    %383 = stablehlo.broadcast_in_dim %cst_117, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %384 = stablehlo.multiply %382, %383 : tensor<8xf32>
    %385 = stablehlo.add %380, %384 : tensor<8xf32>
    %cst_118 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %386 = stablehlo.broadcast_in_dim %cst_118, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %387 = stablehlo.multiply %386, %arg26 : tensor<16xf32>
    %cst_119 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %388 = stablehlo.broadcast_in_dim %cst_119, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %389 = stablehlo.multiply %388, %49 : tensor<16xf32>
    %390 = stablehlo.add %387, %389 : tensor<16xf32>
    %cst_120 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %391 = stablehlo.broadcast_in_dim %cst_120, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %392 = stablehlo.multiply %391, %arg27 : tensor<16xf32>
    %cst_121 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %393 = stablehlo.broadcast_in_dim %cst_121, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %394 = stablehlo.multiply %393, %58 : tensor<16xf32>
    %cst_122 = stablehlo.constant dense<1.00048852> : tensor<f32>
    %395 = stablehlo.broadcast_in_dim %cst_122, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %396 = stablehlo.multiply %394, %395 : tensor<16xf32>
    %397 = stablehlo.add %392, %396 : tensor<16xf32>
    return %101, %219, %241, %263, %285, %307, %329, %351, %373, %202, %224, %246, %268, %290, %312, %334, %356, %208, %230, %252, %274, %296, %318, %340, %362, %378, %385, %390, %397 : tensor<f32>, tensor<8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<3x3x1x8xf32>, tensor<3x3x8x16xf32>, tensor<64x10xf32>, tensor<10xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<3x3x1x8xf32>, tensor<3x3x8x16xf32>, tensor<64x10xf32>, tensor<10xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<3x3x1x8xf32>, tensor<3x3x8x16xf32>, tensor<64x10xf32>, tensor<10xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16xf32>
  }
  func.func private @log_softmax(%arg0: tensor<128x10xf32>) -> (tensor<128x10xf32>, tensor<128x10xf32>, tensor<128x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<128x10xf32>, tensor<f32>) -> tensor<128xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<128xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<128xf32>) -> tensor<128x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<128x1xf32>) -> tensor<128x10xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<128x10xf32>
    %6 = stablehlo.exponential %5 : tensor<128x10xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<128x10xf32>, tensor<f32>) -> tensor<128xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<128xf32>) -> tensor<128x1xf32>
    %9 = stablehlo.log %8 : tensor<128x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<128x1xf32>) -> tensor<128x10xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<128x10xf32>
    return %11, %6, %8 : tensor<128x10xf32>, tensor<128x10xf32>, tensor<128x1xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<128x10xf32>, %arg1: tensor<128x1xi32>) -> (tensor<128x1xf32>, tensor<128x1x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<128x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<128x1xi32>, tensor<128x1xi32>) -> tensor<128x1xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<128x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<128x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<128x1xi1>, tensor<128x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<128x1xi32>) -> tensor<128x1x1xi32>
    %c_1 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<128x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<128x1x1xi32>, tensor<128x1x1xi32>) -> tensor<128x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<128x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<128x1x1xi32>, tensor<128x1x1xi32>) -> tensor<128x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<128x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<128x1x1xi1>, tensor<i1>) -> tensor<128x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<128x10xf32>, tensor<128x1x1xi32>) -> tensor<128x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<128x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<128x1xi1>, tensor<128x1xf32>
    return %15, %5 : tensor<128x1xf32>, tensor<128x1x1xi32>
  }
  func.func private @take_along_axis_0(%arg0: tensor<128x1x1xi32>, %arg1: tensor<128x1xf32>) -> tensor<128x10xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<128x10xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<128x10xf32>, tensor<128x1x1xi32>, tensor<128x1xf32>) -> tensor<128x10xf32>
    return %1 : tensor<128x10xf32>
  }
  func.func private @log_softmax_1(%arg0: tensor<128x10xf32>, %arg1: tensor<128x1xf32>, %arg2: tensor<128x10xf32>) -> tensor<128x10xf32> {
    %0 = stablehlo.negate %arg2 : tensor<128x10xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<128x10xf32>, tensor<f32>) -> tensor<128xf32>
    %2 = stablehlo.reshape %1 : (tensor<128xf32>) -> tensor<128x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<128x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<128x1xf32>, tensor<f32>) -> tensor<128xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<128xf32>) -> tensor<128x10xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<128x10xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<128x10xf32>
    return %7 : tensor<128x10xf32>
  }
}
