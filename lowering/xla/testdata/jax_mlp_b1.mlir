// jax 0.10.2: written by jax_mlp.py in this folder
module @jit_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<512xf32>, %arg1: tensor<512xf32>, %arg2: tensor<512xf32>, %arg3: tensor<512xf32>, %arg4: tensor<512xf32>, %arg5: tensor<512xf32>, %arg6: tensor<512xf32>, %arg7: tensor<512xf32>, %arg8: tensor<784x512xf32>, %arg9: tensor<512xf32>, %arg10: tensor<512x512xf32>, %arg11: tensor<512xf32>, %arg12: tensor<512x10xf32>, %arg13: tensor<10xf32>, %arg14: tensor<1x784xf32>) -> (tensor<1x10xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg14, %arg8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x784xf32>, tensor<784x512xf32>) -> tensor<1x512xf32>
    %1 = stablehlo.broadcast_in_dim %arg9, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %2 = stablehlo.add %0, %1 : tensor<1x512xf32>
    %3 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %4 = stablehlo.subtract %2, %3 : tensor<1x512xf32>
    %cst = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %6 = stablehlo.add %arg3, %5 : tensor<512xf32>
    %7 = stablehlo.rsqrt %6 : tensor<512xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %9 = stablehlo.multiply %4, %8 : tensor<1x512xf32>
    %10 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %11 = stablehlo.multiply %9, %10 : tensor<1x512xf32>
    %12 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %13 = stablehlo.add %11, %12 : tensor<1x512xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x512xf32>
    %15 = stablehlo.maximum %13, %14 : tensor<1x512xf32>
    %16 = stablehlo.dot_general %15, %arg10, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512xf32>, tensor<512x512xf32>) -> tensor<1x512xf32>
    %17 = stablehlo.broadcast_in_dim %arg11, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %18 = stablehlo.add %16, %17 : tensor<1x512xf32>
    %19 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %20 = stablehlo.subtract %18, %19 : tensor<1x512xf32>
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %22 = stablehlo.add %arg7, %21 : tensor<512xf32>
    %23 = stablehlo.rsqrt %22 : tensor<512xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %25 = stablehlo.multiply %20, %24 : tensor<1x512xf32>
    %26 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %27 = stablehlo.multiply %25, %26 : tensor<1x512xf32>
    %28 = stablehlo.broadcast_in_dim %arg6, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %29 = stablehlo.add %27, %28 : tensor<1x512xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<1x512xf32>
    %31 = stablehlo.maximum %29, %30 : tensor<1x512xf32>
    %32 = stablehlo.dot_general %31, %arg12, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512xf32>, tensor<512x10xf32>) -> tensor<1x10xf32>
    %33 = stablehlo.broadcast_in_dim %arg13, dims = [1] : (tensor<10xf32>) -> tensor<1x10xf32>
    %34 = stablehlo.add %32, %33 : tensor<1x10xf32>
    return %34 : tensor<1x10xf32>
  }
}
