module @hofuse {
  // k1_eq1 : f32[5] = zip (\a b -> rnz (+) (\x y p q -> (x + y) * (p + q)) a b v u) A B
  // sources: eq1
  func.func @k1_eq1(%A: tensor<5x7xf32>, %B: tensor<5x7xf32>, %v: tensor<7xf32>, %u: tensor<7xf32>) -> tensor<5xf32> {
    %0 = "stablehlo.add"(%A, %B) : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xf32> loc("eq1")
    %1 = "stablehlo.add"(%v, %u) : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32> loc("eq1")
    %2 = "stablehlo.dot_general"(%0, %1) {
      dot_dimension_numbers = #stablehlo.dot<
  lhs_batching_dimensions = [],
  rhs_batching_dimensions = [],
  lhs_contracting_dimensions = [1],
  rhs_contracting_dimensions = [0]
>,
      precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]
    } : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5xf32> loc("eq1")
    "func.return"(%2) : (tensor<5xf32>) -> ()
  }

  func.func @main(%A: tensor<5x7xf32>, %B: tensor<5x7xf32>, %v: tensor<7xf32>, %u: tensor<7xf32>) -> tensor<5xf32> {
    %t1_eq1 = "func.call"(%A, %B, %v, %u) {callee = @k1_eq1} : (tensor<5x7xf32>, tensor<5x7xf32>, tensor<7xf32>, tensor<7xf32>) -> tensor<5xf32> loc("k1_eq1")
    "func.return"(%t1_eq1) : (tensor<5xf32>) -> ()
  }
}
