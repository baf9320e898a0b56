// jax 0.10.2: written by jax_mlp.py in this folder
module @jit_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<512xf32>, %arg1: tensor<512xf32>, %arg2: tensor<512xf32>, %arg3: tensor<512xf32>, %arg4: tensor<512xf32>, %arg5: tensor<512xf32>, %arg6: tensor<512xf32>, %arg7: tensor<512xf32>, %arg8: tensor<784x512xf32>, %arg9: tensor<512xf32>, %arg10: tensor<512x512xf32>, %arg11: tensor<512xf32>, %arg12: tensor<512x10xf32>, %arg13: tensor<10xf32>, %arg14: tensor<256x784xf32>) -> (tensor<256x10xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg14, %arg8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x784xf32>, tensor<784x512xf32>) -> tensor<256x512xf32>
    %1 = stablehlo.broadcast_in_dim %arg9, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %3 = stablehlo.add %0, %2 : tensor<256x512xf32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %6 = stablehlo.subtract %3, %5 : tensor<256x512xf32>
    %cst = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %8 = stablehlo.add %arg3, %7 : tensor<512xf32>
    %9 = stablehlo.rsqrt %8 : tensor<512xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %12 = stablehlo.multiply %6, %11 : tensor<256x512xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %15 = stablehlo.multiply %12, %14 : tensor<256x512xf32>
    %16 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %18 = stablehlo.add %15, %17 : tensor<256x512xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %20 = stablehlo.maximum %18, %19 : tensor<256x512xf32>
    %21 = stablehlo.dot_general %20, %arg10, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x512xf32>, tensor<512x512xf32>) -> tensor<256x512xf32>
    %22 = stablehlo.broadcast_in_dim %arg11, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %24 = stablehlo.add %21, %23 : tensor<256x512xf32>
    %25 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %27 = stablehlo.subtract %24, %26 : tensor<256x512xf32>
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %29 = stablehlo.add %arg7, %28 : tensor<512xf32>
    %30 = stablehlo.rsqrt %29 : tensor<512xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %33 = stablehlo.multiply %27, %32 : tensor<256x512xf32>
    %34 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %35 = stablehlo.broadcast_in_dim %34, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %36 = stablehlo.multiply %33, %35 : tensor<256x512xf32>
    %37 = stablehlo.broadcast_in_dim %arg6, dims = [1] : (tensor<512xf32>) -> tensor<1x512xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<256x512xf32>
    %39 = stablehlo.add %36, %38 : tensor<256x512xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %41 = stablehlo.maximum %39, %40 : tensor<256x512xf32>
    %42 = stablehlo.dot_general %41, %arg12, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<256x512xf32>, tensor<512x10xf32>) -> tensor<256x10xf32>
    %43 = stablehlo.broadcast_in_dim %arg13, dims = [1] : (tensor<10xf32>) -> tensor<1x10xf32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [0, 1] : (tensor<1x10xf32>) -> tensor<256x10xf32>
    %45 = stablehlo.add %42, %44 : tensor<256x10xf32>
    return %45 : tensor<256x10xf32>
  }
}
