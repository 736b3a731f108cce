module @m attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["b"=2, "m"=4]>
  sdy.mesh @"other mesh" = <["x>"=2], device_ids=[1, 0]> loc("m":1:1)
  func.func @main(%a: tensor<8x?xf32, #stablehlo.bounds<?, 16>> {sdy.sharding = #sdy.sharding<@mesh, [{"b"}, {}]>},
                  %b: tensor<4xbf16, "enc>">) -> tensor<8x?xf32, #stablehlo.bounds<?, 16>> {
    %c = stablehlo.negate %a : tensor<8x?xf32, #stablehlo.bounds<?, 16>>
    return %c : tensor<8x?xf32, #stablehlo.bounds<?, 16>>
  }
}
