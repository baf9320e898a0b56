// jax 0.10.2: written by jax_step.py in this folder
module @jit_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<512xf32>, %arg1: tensor<512xf32>, %arg2: tensor<512xf32>, %arg3: tensor<512xf32>, %arg4: tensor<784x512xf32>, %arg5: tensor<512xf32>, %arg6: tensor<512x512xf32>, %arg7: tensor<512xf32>, %arg8: tensor<512x10xf32>, %arg9: tensor<10xf32>, %arg10: tensor<512xf32>, %arg11: tensor<512xf32>, %arg12: tensor<512xf32>, %arg13: tensor<512xf32>, %arg14: tensor<784x512xf32>, %arg15: tensor<512xf32>, %arg16: tensor<512x512xf32>, %arg17: tensor<512xf32>, %arg18: tensor<512x10xf32>, %arg19: tensor<10xf32>, %arg20: tensor<512xf32>, %arg21: tensor<512xf32>, %arg22: tensor<512xf32>, %arg23: tensor<512xf32>, %arg24: tensor<784x512xf32>, %arg25: tensor<512xf32>, %arg26: tensor<512x512xf32>, %arg27: tensor<512xf32>, %arg28: tensor<512x10xf32>, %arg29: tensor<10xf32>, %arg30: tensor<512xf32>, %arg31: tensor<512xf32>, %arg32: tensor<512xf32>, %arg33: tensor<512xf32>, %arg34: tensor<256x784xf32>, %arg35: tensor<256xi32>, %arg36: tensor<f32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<512xf32> {jax.result_info = "result[1]['bn1.scale']"}, tensor<512xf32> {jax.result_info = "result[1]['bn1.shift']"}, tensor<512xf32> {jax.result_info = "result[1]['bn2.scale']"}, tensor<512xf32> {jax.result_info = "result[1]['bn2.shift']"}, tensor<784x512xf32> {jax.result_info = "result[1]['dense1.W']"}, tensor<512xf32> {jax.result_info = "result[1]['dense1.b']"}, tensor<512x512xf32> {jax.result_info = "result[1]['dense2.W']"}, tensor<512xf32> {jax.result_info = "result[1]['dense2.b']"}, tensor<512x10xf32> {jax.result_info = "result[1]['dense3.W']"}, tensor<10xf32> {jax.result_info = "result[1]['dense3.b']"}, tensor<512xf32> {jax.result_info = "result[2]['bn1.scale']"}, tensor<512xf32> {jax.result_info = "result[2]['bn1.shift']"}, tensor<512xf32> {jax.result_info = "result[2]['bn2.scale']"}, tensor<512xf32> {jax.result_info = "result[2]['bn2.shift']"}, tensor<784x512xf32> {jax.result_info = "result[2]['dense1.W']"}, tensor<512xf32> {jax.result_info = "result[2]['dense1.b']"}, tensor<512x512xf32> {jax.result_info = "result[2]['dense2.W']"}, tensor<512xf32> {jax.result_info = "result[2]['dense2.b']"}, tensor<512x10xf32> {jax.result_info = "result[2]['dense3.W']"}, tensor<10xf32> {jax.result_info = "result[2]['dense3.b']"}, tensor<512xf32> {jax.result_info = "result[3]['bn1.scale']"}, tensor<512xf32> {jax.result_info = "result[3]['bn1.shift']"}, tensor<512xf32> {jax.result_info = "result[3]['bn2.scale']"}, tensor<512xf32> {jax.result_info = "result[3]['bn2.shift']"}, tensor<784x512xf32> {jax.result_info = "result[3]['dense1.W']"}, tensor<512xf32> {jax.result_info = "result[3]['dense1.b']"}, tensor<512x512xf32> {jax.result_info = "result[3]['dense2.W']"}, tensor<512xf32> {jax.result_info = "result[3]['dense2.b']"}, tensor<512x10xf32> {jax.result_info = "result[3]['dense3.W']"}, tensor<10xf32> {jax.result_info = "result[3]['dense3.b']"}, tensor<512xf32> {jax.result_info = "result[4]['bn1.mean']"}, tensor<512xf32> {jax.result_info = "result[4]['bn1.var']"}, tensor<512xf32> {jax.result_info = "result[4]['bn2.mean']"}, tensor<512xf32> {jax.result_info = "result[4]['bn2.var']"}) {
    %0 = stablehlo.dot_general %arg34, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x784xf32>, tensor<784x512xf32>) -> tensor<256x512xf32>
    %1 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %3 = stablehlo.add %0, %2 : tensor<256x512xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %cst_0 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %6 = stablehlo.divide %4, %5 : tensor<512xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %9 = stablehlo.subtract %3, %8 : tensor<256x512xf32>
    %10 = stablehlo.multiply %9, %9 : tensor<256x512xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %12 = stablehlo.multiply %11, %9 : tensor<256x512xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%10 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %cst_3 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %15 = stablehlo.divide %13, %14 : tensor<512xf32>
    %16 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %18 = stablehlo.subtract %3, %17 : tensor<256x512xf32>
    %cst_4 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %20 = stablehlo.add %15, %19 : tensor<512xf32>
    %21 = stablehlo.rsqrt %20 : tensor<512xf32>
    %22 = stablehlo.divide %21, %20 : tensor<512xf32>
    %cst_5 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %24 = stablehlo.multiply %23, %22 : tensor<512xf32>
    %25 = stablehlo.broadcast_in_dim %21, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %27 = stablehlo.multiply %18, %26 : tensor<256x512xf32>
    %28 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %30 = stablehlo.multiply %27, %29 : tensor<256x512xf32>
    %31 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %33 = stablehlo.add %30, %32 : tensor<256x512xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %35 = stablehlo.maximum %33, %34 : tensor<256x512xf32>
    %36 = stablehlo.compare EQ, %33, %35, FLOAT : (tensor<256x512xf32>, tensor<256x512xf32>) -> tensor<256x512xi1>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %39 = stablehlo.select %36, %37, %38 : tensor<256x512xi1>, tensor<256x512xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %41 = stablehlo.compare EQ, %40, %35, FLOAT : (tensor<256x512xf32>, tensor<256x512xf32>) -> tensor<256x512xi1>
    %cst_10 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %44 = stablehlo.select %41, %42, %43 : tensor<256x512xi1>, tensor<256x512xf32>
    %45 = stablehlo.divide %39, %44 : tensor<256x512xf32>
    %46 = stablehlo.dot_general %35, %arg6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x512xf32>, tensor<512x512xf32>) -> tensor<256x512xf32>
    %47 = stablehlo.broadcast_in_dim %arg7, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %49 = stablehlo.add %46, %48 : tensor<256x512xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %50 = stablehlo.reduce(%49 init: %cst_12) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %cst_13 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %52 = stablehlo.divide %50, %51 : tensor<512xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %55 = stablehlo.subtract %49, %54 : tensor<256x512xf32>
    %56 = stablehlo.multiply %55, %55 : tensor<256x512xf32>
    %cst_14 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %58 = stablehlo.multiply %57, %55 : tensor<256x512xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %59 = stablehlo.reduce(%56 init: %cst_15) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %cst_16 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %61 = stablehlo.divide %59, %60 : tensor<512xf32>
    %62 = stablehlo.broadcast_in_dim %52, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %63 = stablehlo.broadcast_in_dim %62, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %64 = stablehlo.subtract %49, %63 : tensor<256x512xf32>
    %cst_17 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %66 = stablehlo.add %61, %65 : tensor<512xf32>
    %67 = stablehlo.rsqrt %66 : tensor<512xf32>
    %68 = stablehlo.divide %67, %66 : tensor<512xf32>
    %cst_18 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %70 = stablehlo.multiply %69, %68 : tensor<512xf32>
    %71 = stablehlo.broadcast_in_dim %67, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %73 = stablehlo.multiply %64, %72 : tensor<256x512xf32>
    %74 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %75 = stablehlo.broadcast_in_dim %74, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %76 = stablehlo.multiply %73, %75 : tensor<256x512xf32>
    %77 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %78 = stablehlo.broadcast_in_dim %77, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %79 = stablehlo.add %76, %78 : tensor<256x512xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %80 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %81 = stablehlo.maximum %79, %80 : tensor<256x512xf32>
    %82 = stablehlo.compare EQ, %79, %81, FLOAT : (tensor<256x512xf32>, tensor<256x512xf32>) -> tensor<256x512xi1>
    %cst_20 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %85 = stablehlo.select %82, %83, %84 : tensor<256x512xi1>, tensor<256x512xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %86 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %87 = stablehlo.compare EQ, %86, %81, FLOAT : (tensor<256x512xf32>, tensor<256x512xf32>) -> tensor<256x512xi1>
    %cst_23 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %cst_24 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %90 = stablehlo.select %87, %88, %89 : tensor<256x512xi1>, tensor<256x512xf32>
    %91 = stablehlo.divide %85, %90 : tensor<256x512xf32>
    %92 = stablehlo.dot_general %81, %arg8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x512xf32>, tensor<512x10xf32>) -> tensor<256x10xf32>
    %93 = stablehlo.broadcast_in_dim %arg9, dims = [1] : (tensor<10xf32>) -> tensor<1x10xf32>
    %94 = stablehlo.broadcast_in_dim %93, dims = [0, 1] : (tensor<1x10xf32>) -> tensor<256x10xf32>
    %95 = stablehlo.add %92, %94 : tensor<256x10xf32>
    %96:3 = call @log_softmax(%95) : (tensor<256x10xf32>) -> (tensor<256x10xf32>, tensor<256x10xf32>, tensor<256x1xf32>)
    %97 = stablehlo.broadcast_in_dim %arg35, dims = [0] : (tensor<256xi32>) -> tensor<256x1xi32>
    %98:2 = call @take_along_axis(%96#0, %97) : (tensor<256x10xf32>, tensor<256x1xi32>) -> (tensor<256x1xf32>, tensor<256x1x1xi32>)
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %99 = stablehlo.reduce(%98#0 init: %cst_25) applies stablehlo.add across dimensions = [0, 1] : (tensor<256x1xf32>, tensor<f32>) -> tensor<f32>
    %cst_26 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %100 = stablehlo.divide %99, %cst_26 : tensor<f32>
    %101 = stablehlo.negate %100 : tensor<f32>
    %cst_27 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %102 = stablehlo.negate %cst_27 : tensor<f32>
    %cst_28 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %103 = stablehlo.divide %102, %cst_28 : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %103, dims = [] : (tensor<f32>) -> tensor<256x1xf32>
    %105 = call @take_along_axis_0(%98#1, %104) : (tensor<256x1x1xi32>, tensor<256x1xf32>) -> tensor<256x10xf32>
    %106 = call @log_softmax_1(%96#1, %96#2, %105) : (tensor<256x10xf32>, tensor<256x1xf32>, tensor<256x10xf32>) -> tensor<256x10xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %107 = stablehlo.reduce(%106 init: %cst_29) applies stablehlo.add across dimensions = [0] : (tensor<256x10xf32>, tensor<f32>) -> tensor<10xf32>
    %108 = stablehlo.reshape %107 : (tensor<10xf32>) -> tensor<1x10xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %109 = stablehlo.reduce(%108 init: %cst_30) applies stablehlo.add across dimensions = [0] : (tensor<1x10xf32>, tensor<f32>) -> tensor<10xf32>
    %110 = stablehlo.dot_general %106, %81, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x10xf32>, tensor<256x512xf32>) -> tensor<10x512xf32>
    %111 = stablehlo.transpose %110, dims = [1, 0] : (tensor<10x512xf32>) -> tensor<512x10xf32>
    %112 = stablehlo.dot_general %106, %arg8, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<256x10xf32>, tensor<512x10xf32>) -> tensor<256x512xf32>
    %113 = stablehlo.multiply %112, %91 : tensor<256x512xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %114 = stablehlo.reduce(%113 init: %cst_31) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %115 = stablehlo.reshape %114 : (tensor<512xf32>) -> tensor<1x512xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %116 = stablehlo.reduce(%115 init: %cst_32) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %117 = stablehlo.multiply %73, %113 : tensor<256x512xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %118 = stablehlo.reduce(%117 init: %cst_33) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %119 = stablehlo.reshape %118 : (tensor<512xf32>) -> tensor<1x512xf32>
    %120 = stablehlo.broadcast_in_dim %74, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %121 = stablehlo.multiply %113, %120 : tensor<256x512xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %122 = stablehlo.reduce(%119 init: %cst_34) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %123 = stablehlo.multiply %64, %121 : tensor<256x512xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %124 = stablehlo.reduce(%123 init: %cst_35) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %125 = stablehlo.reshape %124 : (tensor<512xf32>) -> tensor<1x512xf32>
    %126 = stablehlo.broadcast_in_dim %71, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %127 = stablehlo.multiply %121, %126 : tensor<256x512xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %128 = stablehlo.reduce(%125 init: %cst_36) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %129 = stablehlo.multiply %128, %70 : tensor<512xf32>
    %130 = stablehlo.negate %127 : tensor<256x512xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %131 = stablehlo.reduce(%130 init: %cst_37) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %132 = stablehlo.reshape %131 : (tensor<512xf32>) -> tensor<1x512xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %133 = stablehlo.reduce(%132 init: %cst_38) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %cst_39 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %134 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %135 = stablehlo.divide %129, %134 : tensor<512xf32>
    %136 = stablehlo.broadcast_in_dim %135, dims = [1] : (tensor<512xf32>) -> tensor<256x512xf32>
    %137 = stablehlo.multiply %136, %58 : tensor<256x512xf32>
    %138 = stablehlo.negate %137 : tensor<256x512xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %139 = stablehlo.reduce(%138 init: %cst_40) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %140 = stablehlo.reshape %139 : (tensor<512xf32>) -> tensor<1x512xf32>
    %141 = stablehlo.add %127, %137 : tensor<256x512xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %142 = stablehlo.reduce(%140 init: %cst_41) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %143 = stablehlo.add %133, %142 : tensor<512xf32>
    %cst_42 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %144 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %145 = stablehlo.divide %143, %144 : tensor<512xf32>
    %146 = stablehlo.broadcast_in_dim %145, dims = [1] : (tensor<512xf32>) -> tensor<256x512xf32>
    %147 = stablehlo.add %141, %146 : tensor<256x512xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %148 = stablehlo.reduce(%147 init: %cst_43) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %149 = stablehlo.reshape %148 : (tensor<512xf32>) -> tensor<1x512xf32>
    %cst_44 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %150 = stablehlo.reduce(%149 init: %cst_44) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %151 = stablehlo.dot_general %147, %35, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x512xf32>, tensor<256x512xf32>) -> tensor<512x512xf32>
    %152 = stablehlo.transpose %151, dims = [1, 0] : (tensor<512x512xf32>) -> tensor<512x512xf32>
    %153 = stablehlo.dot_general %147, %arg6, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<256x512xf32>, tensor<512x512xf32>) -> tensor<256x512xf32>
    %154 = stablehlo.multiply %153, %45 : tensor<256x512xf32>
    %cst_45 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %155 = stablehlo.reduce(%154 init: %cst_45) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %156 = stablehlo.reshape %155 : (tensor<512xf32>) -> tensor<1x512xf32>
    %cst_46 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %157 = stablehlo.reduce(%156 init: %cst_46) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %158 = stablehlo.multiply %27, %154 : tensor<256x512xf32>
    %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %159 = stablehlo.reduce(%158 init: %cst_47) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %160 = stablehlo.reshape %159 : (tensor<512xf32>) -> tensor<1x512xf32>
    %161 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %162 = stablehlo.multiply %154, %161 : tensor<256x512xf32>
    %cst_48 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %163 = stablehlo.reduce(%160 init: %cst_48) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %164 = stablehlo.multiply %18, %162 : tensor<256x512xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %165 = stablehlo.reduce(%164 init: %cst_49) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %166 = stablehlo.reshape %165 : (tensor<512xf32>) -> tensor<1x512xf32>
    %167 = stablehlo.broadcast_in_dim %25, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %168 = stablehlo.multiply %162, %167 : tensor<256x512xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %169 = stablehlo.reduce(%166 init: %cst_50) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %170 = stablehlo.multiply %169, %24 : tensor<512xf32>
    %171 = stablehlo.negate %168 : tensor<256x512xf32>
    %cst_51 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %172 = stablehlo.reduce(%171 init: %cst_51) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %173 = stablehlo.reshape %172 : (tensor<512xf32>) -> tensor<1x512xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %174 = stablehlo.reduce(%173 init: %cst_52) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %cst_53 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %176 = stablehlo.divide %170, %175 : tensor<512xf32>
    %177 = stablehlo.broadcast_in_dim %176, dims = [1] : (tensor<512xf32>) -> tensor<256x512xf32>
    %178 = stablehlo.multiply %177, %12 : tensor<256x512xf32>
    %179 = stablehlo.negate %178 : tensor<256x512xf32>
    %cst_54 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %180 = stablehlo.reduce(%179 init: %cst_54) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %181 = stablehlo.reshape %180 : (tensor<512xf32>) -> tensor<1x512xf32>
    %182 = stablehlo.add %168, %178 : tensor<256x512xf32>
    %cst_55 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %183 = stablehlo.reduce(%181 init: %cst_55) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %184 = stablehlo.add %174, %183 : tensor<512xf32>
    %cst_56 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %185 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %186 = stablehlo.divide %184, %185 : tensor<512xf32>
    %187 = stablehlo.broadcast_in_dim %186, dims = [1] : (tensor<512xf32>) -> tensor<256x512xf32>
    %188 = stablehlo.add %182, %187 : tensor<256x512xf32>
    %cst_57 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %189 = stablehlo.reduce(%188 init: %cst_57) applies stablehlo.add across dimensions = [0] : (tensor<256x512xf32>, tensor<f32>) -> tensor<512xf32>
    %190 = stablehlo.reshape %189 : (tensor<512xf32>) -> tensor<1x512xf32>
    %cst_58 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %191 = stablehlo.reduce(%190 init: %cst_58) applies stablehlo.add across dimensions = [0] : (tensor<1x512xf32>, tensor<f32>) -> tensor<512xf32>
    %192 = stablehlo.dot_general %188, %arg34, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x512xf32>, tensor<256x784xf32>) -> tensor<512x784xf32>
    %193 = stablehlo.transpose %192, dims = [1, 0] : (tensor<512x784xf32>) -> tensor<784x512xf32>
    %cst_59 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %194 = stablehlo.power %cst_59, %arg36 : tensor<f32>
    %cst_60 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %195 = stablehlo.subtract %cst_60, %194 : tensor<f32>
    %cst_61 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %196 = stablehlo.power %cst_61, %arg36 : tensor<f32>
    %cst_62 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %197 = stablehlo.subtract %cst_62, %196 : tensor<f32>
    %cst_63 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %198 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %199 = stablehlo.multiply %198, %arg10 : tensor<512xf32>
    %cst_64 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %200 = stablehlo.broadcast_in_dim %cst_64, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %201 = stablehlo.multiply %200, %163 : tensor<512xf32>
    %202 = stablehlo.add %199, %201 : tensor<512xf32>
    %cst_65 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %203 = stablehlo.broadcast_in_dim %cst_65, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %204 = stablehlo.multiply %203, %arg20 : tensor<512xf32>
    %cst_66 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %205 = stablehlo.broadcast_in_dim %cst_66, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %206 = stablehlo.multiply %205, %163 : tensor<512xf32>
    %207 = stablehlo.multiply %206, %163 : tensor<512xf32>
    %208 = stablehlo.add %204, %207 : tensor<512xf32>
    %209 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %210 = stablehlo.divide %202, %209 : tensor<512xf32>
    %cst_67 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %211 = stablehlo.broadcast_in_dim %cst_67, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %212 = stablehlo.multiply %211, %210 : tensor<512xf32>
    %213 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %214 = stablehlo.divide %208, %213 : tensor<512xf32>
    %215 = stablehlo.sqrt %214 : tensor<512xf32>
    %cst_68 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %216 = stablehlo.broadcast_in_dim %cst_68, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %217 = stablehlo.add %215, %216 : tensor<512xf32>
    %218 = stablehlo.divide %212, %217 : tensor<512xf32>
    %219 = stablehlo.subtract %arg0, %218 : tensor<512xf32>
    %cst_69 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %220 = stablehlo.broadcast_in_dim %cst_69, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %221 = stablehlo.multiply %220, %arg11 : tensor<512xf32>
    %cst_70 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %222 = stablehlo.broadcast_in_dim %cst_70, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %223 = stablehlo.multiply %222, %157 : tensor<512xf32>
    %224 = stablehlo.add %221, %223 : tensor<512xf32>
    %cst_71 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %225 = stablehlo.broadcast_in_dim %cst_71, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %226 = stablehlo.multiply %225, %arg21 : tensor<512xf32>
    %cst_72 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %227 = stablehlo.broadcast_in_dim %cst_72, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %228 = stablehlo.multiply %227, %157 : tensor<512xf32>
    %229 = stablehlo.multiply %228, %157 : tensor<512xf32>
    %230 = stablehlo.add %226, %229 : tensor<512xf32>
    %231 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %232 = stablehlo.divide %224, %231 : tensor<512xf32>
    %cst_73 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %233 = stablehlo.broadcast_in_dim %cst_73, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %234 = stablehlo.multiply %233, %232 : tensor<512xf32>
    %235 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %236 = stablehlo.divide %230, %235 : tensor<512xf32>
    %237 = stablehlo.sqrt %236 : tensor<512xf32>
    %cst_74 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %238 = stablehlo.broadcast_in_dim %cst_74, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %239 = stablehlo.add %237, %238 : tensor<512xf32>
    %240 = stablehlo.divide %234, %239 : tensor<512xf32>
    %241 = stablehlo.subtract %arg1, %240 : tensor<512xf32>
    %cst_75 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %242 = stablehlo.broadcast_in_dim %cst_75, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %243 = stablehlo.multiply %242, %arg12 : tensor<512xf32>
    %cst_76 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %244 = stablehlo.broadcast_in_dim %cst_76, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %245 = stablehlo.multiply %244, %122 : tensor<512xf32>
    %246 = stablehlo.add %243, %245 : tensor<512xf32>
    %cst_77 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %247 = stablehlo.broadcast_in_dim %cst_77, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %248 = stablehlo.multiply %247, %arg22 : tensor<512xf32>
    %cst_78 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %249 = stablehlo.broadcast_in_dim %cst_78, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %250 = stablehlo.multiply %249, %122 : tensor<512xf32>
    %251 = stablehlo.multiply %250, %122 : tensor<512xf32>
    %252 = stablehlo.add %248, %251 : tensor<512xf32>
    %253 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %254 = stablehlo.divide %246, %253 : tensor<512xf32>
    %cst_79 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %255 = stablehlo.broadcast_in_dim %cst_79, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %256 = stablehlo.multiply %255, %254 : tensor<512xf32>
    %257 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %258 = stablehlo.divide %252, %257 : tensor<512xf32>
    %259 = stablehlo.sqrt %258 : tensor<512xf32>
    %cst_80 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %260 = stablehlo.broadcast_in_dim %cst_80, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %261 = stablehlo.add %259, %260 : tensor<512xf32>
    %262 = stablehlo.divide %256, %261 : tensor<512xf32>
    %263 = stablehlo.subtract %arg2, %262 : tensor<512xf32>
    %cst_81 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %264 = stablehlo.broadcast_in_dim %cst_81, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %265 = stablehlo.multiply %264, %arg13 : tensor<512xf32>
    %cst_82 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %266 = stablehlo.broadcast_in_dim %cst_82, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %267 = stablehlo.multiply %266, %116 : tensor<512xf32>
    %268 = stablehlo.add %265, %267 : tensor<512xf32>
    %cst_83 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %269 = stablehlo.broadcast_in_dim %cst_83, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %270 = stablehlo.multiply %269, %arg23 : tensor<512xf32>
    %cst_84 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %271 = stablehlo.broadcast_in_dim %cst_84, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %272 = stablehlo.multiply %271, %116 : tensor<512xf32>
    %273 = stablehlo.multiply %272, %116 : tensor<512xf32>
    %274 = stablehlo.add %270, %273 : tensor<512xf32>
    %275 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %276 = stablehlo.divide %268, %275 : tensor<512xf32>
    %cst_85 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %277 = stablehlo.broadcast_in_dim %cst_85, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %278 = stablehlo.multiply %277, %276 : tensor<512xf32>
    %279 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %280 = stablehlo.divide %274, %279 : tensor<512xf32>
    %281 = stablehlo.sqrt %280 : tensor<512xf32>
    %cst_86 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %282 = stablehlo.broadcast_in_dim %cst_86, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %283 = stablehlo.add %281, %282 : tensor<512xf32>
    %284 = stablehlo.divide %278, %283 : tensor<512xf32>
    %285 = stablehlo.subtract %arg3, %284 : tensor<512xf32>
    %cst_87 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %286 = stablehlo.broadcast_in_dim %cst_87, dims = [] : (tensor<f32>) -> tensor<784x512xf32>
    %287 = stablehlo.multiply %286, %arg14 : tensor<784x512xf32>
    %cst_88 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %288 = stablehlo.broadcast_in_dim %cst_88, dims = [] : (tensor<f32>) -> tensor<784x512xf32>
    %289 = stablehlo.multiply %288, %193 : tensor<784x512xf32>
    %290 = stablehlo.add %287, %289 : tensor<784x512xf32>
    %cst_89 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %291 = stablehlo.broadcast_in_dim %cst_89, dims = [] : (tensor<f32>) -> tensor<784x512xf32>
    %292 = stablehlo.multiply %291, %arg24 : tensor<784x512xf32>
    %cst_90 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %293 = stablehlo.broadcast_in_dim %cst_90, dims = [] : (tensor<f32>) -> tensor<784x512xf32>
    %294 = stablehlo.multiply %293, %193 : tensor<784x512xf32>
    %295 = stablehlo.multiply %294, %193 : tensor<784x512xf32>
    %296 = stablehlo.add %292, %295 : tensor<784x512xf32>
    %297 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<784x512xf32>
    %298 = stablehlo.divide %290, %297 : tensor<784x512xf32>
    %cst_91 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %299 = stablehlo.broadcast_in_dim %cst_91, dims = [] : (tensor<f32>) -> tensor<784x512xf32>
    %300 = stablehlo.multiply %299, %298 : tensor<784x512xf32>
    %301 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<784x512xf32>
    %302 = stablehlo.divide %296, %301 : tensor<784x512xf32>
    %303 = stablehlo.sqrt %302 : tensor<784x512xf32>
    %cst_92 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %304 = stablehlo.broadcast_in_dim %cst_92, dims = [] : (tensor<f32>) -> tensor<784x512xf32>
    %305 = stablehlo.add %303, %304 : tensor<784x512xf32>
    %306 = stablehlo.divide %300, %305 : tensor<784x512xf32>
    %307 = stablehlo.subtract %arg4, %306 : tensor<784x512xf32>
    %cst_93 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %308 = stablehlo.broadcast_in_dim %cst_93, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %309 = stablehlo.multiply %308, %arg15 : tensor<512xf32>
    %cst_94 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %310 = stablehlo.broadcast_in_dim %cst_94, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %311 = stablehlo.multiply %310, %191 : tensor<512xf32>
    %312 = stablehlo.add %309, %311 : tensor<512xf32>
    %cst_95 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %313 = stablehlo.broadcast_in_dim %cst_95, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %314 = stablehlo.multiply %313, %arg25 : tensor<512xf32>
    %cst_96 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %315 = stablehlo.broadcast_in_dim %cst_96, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %316 = stablehlo.multiply %315, %191 : tensor<512xf32>
    %317 = stablehlo.multiply %316, %191 : tensor<512xf32>
    %318 = stablehlo.add %314, %317 : tensor<512xf32>
    %319 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %320 = stablehlo.divide %312, %319 : tensor<512xf32>
    %cst_97 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %321 = stablehlo.broadcast_in_dim %cst_97, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %322 = stablehlo.multiply %321, %320 : tensor<512xf32>
    %323 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %324 = stablehlo.divide %318, %323 : tensor<512xf32>
    %325 = stablehlo.sqrt %324 : tensor<512xf32>
    %cst_98 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %326 = stablehlo.broadcast_in_dim %cst_98, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %327 = stablehlo.add %325, %326 : tensor<512xf32>
    %328 = stablehlo.divide %322, %327 : tensor<512xf32>
    %329 = stablehlo.subtract %arg5, %328 : tensor<512xf32>
    %cst_99 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %330 = stablehlo.broadcast_in_dim %cst_99, dims = [] : (tensor<f32>) -> tensor<512x512xf32>
    %331 = stablehlo.multiply %330, %arg16 : tensor<512x512xf32>
    %cst_100 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %332 = stablehlo.broadcast_in_dim %cst_100, dims = [] : (tensor<f32>) -> tensor<512x512xf32>
    %333 = stablehlo.multiply %332, %152 : tensor<512x512xf32>
    %334 = stablehlo.add %331, %333 : tensor<512x512xf32>
    %cst_101 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %335 = stablehlo.broadcast_in_dim %cst_101, dims = [] : (tensor<f32>) -> tensor<512x512xf32>
    %336 = stablehlo.multiply %335, %arg26 : tensor<512x512xf32>
    %cst_102 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %337 = stablehlo.broadcast_in_dim %cst_102, dims = [] : (tensor<f32>) -> tensor<512x512xf32>
    %338 = stablehlo.multiply %337, %152 : tensor<512x512xf32>
    %339 = stablehlo.multiply %338, %152 : tensor<512x512xf32>
    %340 = stablehlo.add %336, %339 : tensor<512x512xf32>
    %341 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<512x512xf32>
    %342 = stablehlo.divide %334, %341 : tensor<512x512xf32>
    %cst_103 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %343 = stablehlo.broadcast_in_dim %cst_103, dims = [] : (tensor<f32>) -> tensor<512x512xf32>
    %344 = stablehlo.multiply %343, %342 : tensor<512x512xf32>
    %345 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<512x512xf32>
    %346 = stablehlo.divide %340, %345 : tensor<512x512xf32>
    %347 = stablehlo.sqrt %346 : tensor<512x512xf32>
    %cst_104 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %348 = stablehlo.broadcast_in_dim %cst_104, dims = [] : (tensor<f32>) -> tensor<512x512xf32>
    %349 = stablehlo.add %347, %348 : tensor<512x512xf32>
    %350 = stablehlo.divide %344, %349 : tensor<512x512xf32>
    %351 = stablehlo.subtract %arg6, %350 : tensor<512x512xf32>
    %cst_105 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %352 = stablehlo.broadcast_in_dim %cst_105, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %353 = stablehlo.multiply %352, %arg17 : tensor<512xf32>
    %cst_106 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %354 = stablehlo.broadcast_in_dim %cst_106, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %355 = stablehlo.multiply %354, %150 : tensor<512xf32>
    %356 = stablehlo.add %353, %355 : tensor<512xf32>
    %cst_107 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %357 = stablehlo.broadcast_in_dim %cst_107, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %358 = stablehlo.multiply %357, %arg27 : tensor<512xf32>
    %cst_108 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %359 = stablehlo.broadcast_in_dim %cst_108, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %360 = stablehlo.multiply %359, %150 : tensor<512xf32>
    %361 = stablehlo.multiply %360, %150 : tensor<512xf32>
    %362 = stablehlo.add %358, %361 : tensor<512xf32>
    %363 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %364 = stablehlo.divide %356, %363 : tensor<512xf32>
    %cst_109 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %365 = stablehlo.broadcast_in_dim %cst_109, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %366 = stablehlo.multiply %365, %364 : tensor<512xf32>
    %367 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %368 = stablehlo.divide %362, %367 : tensor<512xf32>
    %369 = stablehlo.sqrt %368 : tensor<512xf32>
    %cst_110 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %370 = stablehlo.broadcast_in_dim %cst_110, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %371 = stablehlo.add %369, %370 : tensor<512xf32>
    %372 = stablehlo.divide %366, %371 : tensor<512xf32>
    %373 = stablehlo.subtract %arg7, %372 : tensor<512xf32>
    %cst_111 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %374 = stablehlo.broadcast_in_dim %cst_111, dims = [] : (tensor<f32>) -> tensor<512x10xf32>
    %375 = stablehlo.multiply %374, %arg18 : tensor<512x10xf32>
    %cst_112 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %376 = stablehlo.broadcast_in_dim %cst_112, dims = [] : (tensor<f32>) -> tensor<512x10xf32>
    %377 = stablehlo.multiply %376, %111 : tensor<512x10xf32>
    %378 = stablehlo.add %375, %377 : tensor<512x10xf32>
    %cst_113 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %379 = stablehlo.broadcast_in_dim %cst_113, dims = [] : (tensor<f32>) -> tensor<512x10xf32>
    %380 = stablehlo.multiply %379, %arg28 : tensor<512x10xf32>
    %cst_114 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %381 = stablehlo.broadcast_in_dim %cst_114, dims = [] : (tensor<f32>) -> tensor<512x10xf32>
    %382 = stablehlo.multiply %381, %111 : tensor<512x10xf32>
    %383 = stablehlo.multiply %382, %111 : tensor<512x10xf32>
    %384 = stablehlo.add %380, %383 : tensor<512x10xf32>
    %385 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<512x10xf32>
    %386 = stablehlo.divide %378, %385 : tensor<512x10xf32>
    %cst_115 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %387 = stablehlo.broadcast_in_dim %cst_115, dims = [] : (tensor<f32>) -> tensor<512x10xf32>
    %388 = stablehlo.multiply %387, %386 : tensor<512x10xf32>
    %389 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<512x10xf32>
    %390 = stablehlo.divide %384, %389 : tensor<512x10xf32>
    %391 = stablehlo.sqrt %390 : tensor<512x10xf32>
    %cst_116 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %392 = stablehlo.broadcast_in_dim %cst_116, dims = [] : (tensor<f32>) -> tensor<512x10xf32>
    %393 = stablehlo.add %391, %392 : tensor<512x10xf32>
    %394 = stablehlo.divide %388, %393 : tensor<512x10xf32>
    %395 = stablehlo.subtract %arg8, %394 : tensor<512x10xf32>
    %cst_117 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %396 = stablehlo.broadcast_in_dim %cst_117, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %397 = stablehlo.multiply %396, %arg19 : tensor<10xf32>
    %cst_118 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %398 = stablehlo.broadcast_in_dim %cst_118, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %399 = stablehlo.multiply %398, %109 : tensor<10xf32>
    %400 = stablehlo.add %397, %399 : tensor<10xf32>
    %cst_119 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %401 = stablehlo.broadcast_in_dim %cst_119, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %402 = stablehlo.multiply %401, %arg29 : tensor<10xf32>
    %cst_120 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %403 = stablehlo.broadcast_in_dim %cst_120, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %404 = stablehlo.multiply %403, %109 : tensor<10xf32>
    %405 = stablehlo.multiply %404, %109 : tensor<10xf32>
    %406 = stablehlo.add %402, %405 : tensor<10xf32>
    %407 = stablehlo.broadcast_in_dim %195, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %408 = stablehlo.divide %400, %407 : tensor<10xf32>
    %cst_121 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %409 = stablehlo.broadcast_in_dim %cst_121, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %410 = stablehlo.multiply %409, %408 : tensor<10xf32>
    %411 = stablehlo.broadcast_in_dim %197, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %412 = stablehlo.divide %406, %411 : tensor<10xf32>
    %413 = stablehlo.sqrt %412 : tensor<10xf32>
    %cst_122 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %414 = stablehlo.broadcast_in_dim %cst_122, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %415 = stablehlo.add %413, %414 : tensor<10xf32>
    %416 = stablehlo.divide %410, %415 : tensor<10xf32>
    %417 = stablehlo.subtract %arg9, %416 : tensor<10xf32>
    %cst_123 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %418 = stablehlo.broadcast_in_dim %cst_123, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %419 = stablehlo.multiply %418, %arg30 : tensor<512xf32>
    %cst_124 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %420 = stablehlo.broadcast_in_dim %cst_124, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %421 = stablehlo.multiply %420, %6 : tensor<512xf32>
    %422 = stablehlo.add %419, %421 : tensor<512xf32>
    %cst_125 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %423 = stablehlo.broadcast_in_dim %cst_125, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %424 = stablehlo.multiply %423, %arg31 : tensor<512xf32>
    %cst_126 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %425 = stablehlo.broadcast_in_dim %cst_126, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %426 = stablehlo.multiply %425, %15 : tensor<512xf32>
    %cst_127 = stablehlo.constant dense<1.00392163> : tensor<f32>
    %427 = stablehlo.broadcast_in_dim %cst_127, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %428 = stablehlo.multiply %426, %427 : tensor<512xf32>
    %429 = stablehlo.add %424, %428 : tensor<512xf32>
    %cst_128 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %430 = stablehlo.broadcast_in_dim %cst_128, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %431 = stablehlo.multiply %430, %arg32 : tensor<512xf32>
    %cst_129 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %432 = stablehlo.broadcast_in_dim %cst_129, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %433 = stablehlo.multiply %432, %52 : tensor<512xf32>
    %434 = stablehlo.add %431, %433 : tensor<512xf32>
    %cst_130 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %435 = stablehlo.broadcast_in_dim %cst_130, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %436 = stablehlo.multiply %435, %arg33 : tensor<512xf32>
    %cst_131 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %437 = stablehlo.broadcast_in_dim %cst_131, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %438 = stablehlo.multiply %437, %61 : tensor<512xf32>
    %cst_132 = stablehlo.constant dense<1.00392163> : tensor<f32>
    %439 = stablehlo.broadcast_in_dim %cst_132, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %440 = stablehlo.multiply %438, %439 : tensor<512xf32>
    %441 = stablehlo.add %436, %440 : tensor<512xf32>
    return %101, %219, %241, %263, %285, %307, %329, %351, %373, %395, %417, %202, %224, %246, %268, %290, %312, %334, %356, %378, %400, %208, %230, %252, %274, %296, %318, %340, %362, %384, %406, %422, %429, %434, %441 : tensor<f32>, tensor<512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<784x512xf32>, tensor<512xf32>, tensor<512x512xf32>, tensor<512xf32>, tensor<512x10xf32>, tensor<10xf32>, tensor<512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<784x512xf32>, tensor<512xf32>, tensor<512x512xf32>, tensor<512xf32>, tensor<512x10xf32>, tensor<10xf32>, tensor<512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<784x512xf32>, tensor<512xf32>, tensor<512x512xf32>, tensor<512xf32>, tensor<512x10xf32>, tensor<10xf32>, tensor<512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<512xf32>
  }
  func.func private @log_softmax(%arg0: tensor<256x10xf32>) -> (tensor<256x10xf32>, tensor<256x10xf32>, tensor<256x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<256x10xf32>, tensor<f32>) -> tensor<256xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<256xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<256xf32>) -> tensor<256x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<256x1xf32>) -> tensor<256x10xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<256x10xf32>
    %6 = stablehlo.exponential %5 : tensor<256x10xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<256x10xf32>, tensor<f32>) -> tensor<256xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<256xf32>) -> tensor<256x1xf32>
    %9 = stablehlo.log %8 : tensor<256x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<256x1xf32>) -> tensor<256x10xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<256x10xf32>
    return %11, %6, %8 : tensor<256x10xf32>, tensor<256x10xf32>, tensor<256x1xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<256x10xf32>, %arg1: tensor<256x1xi32>) -> (tensor<256x1xf32>, tensor<256x1x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<256x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<256x1xi32>, tensor<256x1xi32>) -> tensor<256x1xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<256x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<256x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<256x1xi1>, tensor<256x1xi32>
    %5 = stablehlo.reshape %4 : (tensor<256x1xi32>) -> tensor<256x1x1xi32>
    %c_1 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<256x1x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<256x1x1xi32>, tensor<256x1x1xi32>) -> tensor<256x1x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<256x1x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<256x1x1xi32>, tensor<256x1x1xi32>) -> tensor<256x1x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<256x1x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<256x1x1xi1>, tensor<i1>) -> tensor<256x1xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<256x10xf32>, tensor<256x1x1xi32>) -> tensor<256x1xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<256x1xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<256x1xi1>, tensor<256x1xf32>
    return %15, %5 : tensor<256x1xf32>, tensor<256x1x1xi32>
  }
  func.func private @take_along_axis_0(%arg0: tensor<256x1x1xi32>, %arg1: tensor<256x1xf32>) -> tensor<256x10xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<256x10xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<256x10xf32>, tensor<256x1x1xi32>, tensor<256x1xf32>) -> tensor<256x10xf32>
    return %1 : tensor<256x10xf32>
  }
  func.func private @log_softmax_1(%arg0: tensor<256x10xf32>, %arg1: tensor<256x1xf32>, %arg2: tensor<256x10xf32>) -> tensor<256x10xf32> {
    %0 = stablehlo.negate %arg2 : tensor<256x10xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<256x10xf32>, tensor<f32>) -> tensor<256xf32>
    %2 = stablehlo.reshape %1 : (tensor<256xf32>) -> tensor<256x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<256x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<256x1xf32>, tensor<f32>) -> tensor<256xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<256xf32>) -> tensor<256x10xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<256x10xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<256x10xf32>
    return %7 : tensor<256x10xf32>
  }
}
