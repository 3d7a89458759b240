#!/bin/bash
# set_env.sh of the simulated CANN toolkit; source it (`source .../set_env.sh`), do not run it.
# Exports what the real toolkit's set_env.sh exports. Paths follow from where this file lies:
#   <root>/ascend-toolkit/set_env.sh, latest -> <ver> (up to 8.3): home is ascend-toolkit/latest;
#   <root>/ascend-toolkit/set_env.sh, latest -> <root>/cann (8.5 on): home is <root>/cann-<ver>;
#   <root>/cann-<ver>/set_env.sh: home is that directory.
# The driver libraries come from Driver_Install_Path_Param in /etc/ascend_install.info.
# ASCEND_SIM_ROOT (simulator tests only) prefixes absolute paths read from links and files.
_ascend_sim_root=${ASCEND_SIM_ROOT:-}
_ascend_sim_root=${_ascend_sim_root%/}
_ascend_dir=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
if [ -L "$_ascend_dir/latest" ]; then
    _ascend_target=$(readlink "$_ascend_dir/latest")
    case "$_ascend_target" in
        /*) ASCEND_TOOLKIT_HOME=$(cd -P "$_ascend_sim_root$_ascend_target" && pwd) ;;
        *) ASCEND_TOOLKIT_HOME="$_ascend_dir/latest" ;;
    esac
else
    ASCEND_TOOLKIT_HOME=$(cd -P "$_ascend_dir" && pwd)
fi
_ascend_driver=$(sed -n 's/^Driver_Install_Path_Param=//p' "$_ascend_sim_root/etc/ascend_install.info" 2>/dev/null | head -n 1)
if [ -n "$_ascend_driver" ]; then
    _ascend_driver="$_ascend_sim_root$_ascend_driver/driver"
else
    _ascend_driver="$(dirname "$_ascend_dir")/driver"
fi
export LD_LIBRARY_PATH=$_ascend_driver/lib64:$_ascend_driver/lib64/common:$_ascend_driver/lib64/driver:${LD_LIBRARY_PATH:-}
export ASCEND_TOOLKIT_HOME
export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/lib64:${ASCEND_TOOLKIT_HOME}/lib64/plugin/opskernel:${ASCEND_TOOLKIT_HOME}/lib64/plugin/nnengine:${ASCEND_TOOLKIT_HOME}/opp/built-in/op_impl/ai_core/tbe/op_tiling/lib/linux/$(uname -m):$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/tools/aml/lib64:${ASCEND_TOOLKIT_HOME}/tools/aml/lib64/plugin:$LD_LIBRARY_PATH
export PYTHONPATH=${ASCEND_TOOLKIT_HOME}/python/site-packages:${ASCEND_TOOLKIT_HOME}/opp/built-in/op_impl/ai_core/tbe:${PYTHONPATH:-}
export PATH=${ASCEND_TOOLKIT_HOME}/bin:${ASCEND_TOOLKIT_HOME}/compiler/ccec_compiler/bin:${ASCEND_TOOLKIT_HOME}/tools/ccec_compiler/bin:$PATH
export ASCEND_AICPU_PATH=${ASCEND_TOOLKIT_HOME}
export ASCEND_OPP_PATH=${ASCEND_TOOLKIT_HOME}/opp
export TOOLCHAIN_HOME=${ASCEND_TOOLKIT_HOME}/toolkit
export ASCEND_HOME_PATH=${ASCEND_TOOLKIT_HOME}
unset _ascend_sim_root _ascend_dir _ascend_target _ascend_driver
