#!/bin/bash
# nnal/atb/set_env.sh of the simulated CANN NNAL; source it after the toolkit's set_env.sh.
# Like the real one: `--cxx_abi=0|1` picks the ATB build, else torch's C++11 ABI setting decides
# (1 when torch cannot tell). Paths follow from where this file lies.
_atb_dir=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
_atb_abi=""
for _atb_arg in "$@"; do
    case "$_atb_arg" in --cxx_abi=0|--cxx_abi=1) _atb_abi=${_atb_arg#--cxx_abi=} ;; esac
done
if [ -z "$_atb_abi" ]; then
    _atb_abi=$(python3 -c 'import torch; print(int(torch.compiled_with_cxx11_abi()))' 2>/dev/null)
    case "$_atb_abi" in 0|1) ;; *) _atb_abi=1 ;; esac
fi
export ATB_HOME_PATH=$_atb_dir/latest/atb/cxx_abi_$_atb_abi
export LD_LIBRARY_PATH=$ATB_HOME_PATH/lib:$ATB_HOME_PATH/examples:$ATB_HOME_PATH/tests/atbopstest:${LD_LIBRARY_PATH:-}
export PATH=$ATB_HOME_PATH/bin:$PATH
export ATB_STREAM_SYNC_EVERY_KERNEL_ENABLE=0
export ATB_STREAM_SYNC_EVERY_RUNNER_ENABLE=0
export ATB_STREAM_SYNC_EVERY_OPERATION_ENABLE=0
export ATB_OPSRUNNER_SETUP_CACHE_ENABLE=1
export ATB_OPSRUNNER_KERNEL_CACHE_LOCAL_COUNT=1
export ATB_OPSRUNNER_KERNEL_CACHE_GLOABL_COUNT=5
export ATB_OPSRUNNER_KERNEL_CACHE_TILING_SIZE=10240
export ATB_WORKSPACE_MEM_ALLOC_GLOBAL=0
export ATB_DEVICE_TILING_BUFFER_BLOCK_NUM=32
export ATB_COMPARE_TILING_EVERY_KERNEL=0
export ATB_MATMUL_SHUFFLE_K_ENABLE=1
export ATB_WORKSPACE_MEM_ALLOC_ALG_TYPE=1
export ATB_SHARE_MEMORY_NAME_SUFFIX=""
unset _atb_dir _atb_abi _atb_arg
