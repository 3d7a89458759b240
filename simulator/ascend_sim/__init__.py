"""The simulated Atlas 800I A2 node: state, npu-smi, installers, image and fleet."""
