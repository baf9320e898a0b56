module @hofuse {
  // k1_eq2 : f32[4,5] = map (\a -> map (\b -> rnz (+) (\x y z -> x * y * z) a b g) (flip 0 B)) A
  // sources: eq2
  func.func @k1_eq2(%A: tensor<4x6xf32>, %B: tensor<6x5xf32>, %g: tensor<6xf32>) -> tensor<4x5xf32> {
    %0 = "stablehlo.transpose"(%B) { permutation = array<i64: 1, 0> } : (tensor<6x5xf32>) -> tensor<5x6xf32> loc("eq2")
    %1 = "stablehlo.broadcast_in_dim"(%g) { broadcast_dimensions = array<i64: 1> } : (tensor<6xf32>) -> tensor<5x6xf32> loc("eq2")
    %2 = "stablehlo.multiply"(%0, %1) : (tensor<5x6xf32>, tensor<5x6xf32>) -> tensor<5x6xf32> loc("eq2")
    %3 = "stablehlo.dot_general"(%A, %2) {
      dot_dimension_numbers = #stablehlo.dot<
  lhs_batching_dimensions = [],
  rhs_batching_dimensions = [],
  lhs_contracting_dimensions = [1],
  rhs_contracting_dimensions = [1]
>,
      precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]
    } : (tensor<4x6xf32>, tensor<5x6xf32>) -> tensor<4x5xf32> loc("eq2")
    "func.return"(%3) : (tensor<4x5xf32>) -> ()
  }

  func.func @main(%A: tensor<4x6xf32>, %B: tensor<6x5xf32>, %g: tensor<6xf32>) -> tensor<4x5xf32> {
    %t1_eq2 = "func.call"(%A, %B, %g) {callee = @k1_eq2} : (tensor<4x6xf32>, tensor<6x5xf32>, tensor<6xf32>) -> tensor<4x5xf32> loc("k1_eq2")
    "func.return"(%t1_eq2) : (tensor<4x5xf32>) -> ()
  }
}
