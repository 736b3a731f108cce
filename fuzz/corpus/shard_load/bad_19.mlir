module {
  func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
    %d = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x2xf32>
    return %d : tensor<4x2xf32>
  }
}
