// func.func @main( in a comment
module @tricky {
  func.func private @helper(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    return %arg0 : tensor<4x8xf32>
  }
  func.func @main(
      %arg0: tensor<4x8xf32> {jax.arg_info = "a\"}{,", mhlo.layout_mode = "default"} loc("x":1:2), // first
      %arg1: tensor<8x8xf32, #enc> {tf.aliasing_output = 0 : i32},
      %arg2: tensor<f32> {},
      %arg3: tensor<8xf32> {mhlo.sharding = "{devices=[2]0,1}", zz.other = #foo<{"a" = [1, 2], b = #x<y<z>>}>}
    ) -> (tensor<4x8xf32> {jax.result_info = "[0]"}, tensor<8xf32>) {
    %0 = call @helper(%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %0, %arg3 : tensor<4x8xf32>, tensor<8xf32>
  }
}
