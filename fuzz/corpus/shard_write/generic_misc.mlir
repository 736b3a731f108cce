module {
  func.func @main(%a: tensor<4x8xf32>, %i: tensor<2x1xi32>) -> (tensor<2x8xf32>, tensor<4xf32>, tensor<2x8xf32>) {
    %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> : (tensor<4x8xf32>, tensor<2x1xi32>) -> tensor<2x8xf32>
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = "stablehlo.reduce"(%a, %c) <{dimensions = array<i64: 1>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %m = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %2 = "stablehlo.slice"(%a) <{start_indices = array<i64: 0, 0>, limit_indices = array<i64: 4, 8>, strides = array<i64: 2, 1>}> : (tensor<4x8xf32>) -> tensor<2x8xf32>
    %3 = "stablehlo.compare"(%2, %2) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xi1>
    %4 = stablehlo.select %3, %2, %0 : tensor<2x8xi1>, tensor<2x8xf32>
    %5 = stablehlo.iota dim = 1 : tensor<2x8xf32>
    %6 = stablehlo.custom_call @foo(%5) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %7:2 = "foo.pair"(%6) : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>)
    %8 = stablehlo.add %7#0, %4 : tensor<2x8xf32>
    return %8, %1, %7#1 : tensor<2x8xf32>, tensor<4xf32>, tensor<2x8xf32>
  }
}
