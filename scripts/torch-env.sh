# shellcheck shell=bash
# Makes libtorch 2.11.0 available to the build, installing it when it is missing.
#
# Source it (`source scripts/torch-env.sh`); it exports what tch's build needs:
# - with LIBTORCH already set (a libtorch 2.11 of your own), nothing is installed and the
#   build links that one;
# - otherwise a Python venv with the pip wheel torch==2.11.0 is created once per user, in
#   ${GIPFZERO_TORCH_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/gipfzero/torch-2.11.0}, shared by
#   every clone on the machine, and VIRTUAL_ENV, PATH and LIBTORCH_USE_PYTORCH=1 are exported;
#   with a CUDA build of torch, the CUDA headers the CUDA graph shim needs are added to it.
# The install is idempotent and safe against interruption: a marker file is written only
# after pip succeeded, and a directory without it is rebuilt; a lock serialises concurrent
# installs from several clones.

gipfzero_torch_version=2.11.0

gipfzero_install_torch() {
    local venv=$1
    local python=${GIPFZERO_PYTHON:-python3}
    mkdir -p "$(dirname "$venv")" || return 1
    (
        flock 9 || exit 1
        if [ -f "$venv/.gipfzero-complete" ]; then exit 0; fi
        echo "gipfzero: installing torch==$gipfzero_torch_version into $venv (once per machine, ~4.6 GB)" >&2
        rm -rf "$venv"
        "$python" -m venv "$venv" || exit 1
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            "torch==$gipfzero_torch_version" numpy || exit 1
        "$venv/bin/python" -c "import torch, sys; sys.exit(0 if torch.__version__.split('+')[0] == '$gipfzero_torch_version' else 1)" || exit 1
        touch "$venv/.gipfzero-complete"
    ) 9>"$venv.lock"
}

# The CUDA runtime's crt/ headers, which libtorch's CUDA headers include and the wheel's
# nvidia packages leave out: model/build.rs needs them to build the CUDA graph shim
# (model/src/cuda_graph.rs). A few hundred kB, installed once per venv, only for a CUDA build of
# torch; when it cannot be installed (offline, a CUDA without the package) the build goes on
# without CUDA graphs, and removing $venv/.gipfzero-cuda-headers tries again.
gipfzero_install_cuda_headers() {
    local venv=$1
    (
        flock 9 || exit 1
        if [ -f "$venv/.gipfzero-cuda-headers" ]; then exit 0; fi
        cuda=$("$venv/bin/python" -c "import torch; print(torch.version.cuda or '')") || exit 1
        if [ -n "$cuda" ] && ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
                "nvidia-cuda-crt==$cuda.*"; then
            echo "gipfzero: could not install nvidia-cuda-crt==$cuda.*: building without CUDA graphs" >&2
        fi
        touch "$venv/.gipfzero-cuda-headers"
    ) 9>"$venv.lock"
}

if [ -n "${LIBTORCH:-}" ]; then
    export LIBTORCH
    unset LIBTORCH_USE_PYTORCH
else
    gipfzero_venv=${GIPFZERO_TORCH_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/gipfzero/torch-$gipfzero_torch_version}
    if [ ! -f "$gipfzero_venv/.gipfzero-complete" ]; then
        gipfzero_install_torch "$gipfzero_venv" || {
            echo "gipfzero: could not install torch==$gipfzero_torch_version into $gipfzero_venv" >&2
            return 1 2>/dev/null || exit 1
        }
    fi
    if [ ! -f "$gipfzero_venv/.gipfzero-cuda-headers" ]; then
        gipfzero_install_cuda_headers "$gipfzero_venv"
    fi
    export VIRTUAL_ENV=$gipfzero_venv
    export PATH="$gipfzero_venv/bin:$PATH"
    export LIBTORCH_USE_PYTORCH=1
fi
