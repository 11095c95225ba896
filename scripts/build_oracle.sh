#!/usr/bin/env bash
# Build llama-cpp-python 0.3.36 (with its vendored llama.cpp) from the pinned sdist into a virtual
# environment of its own, outside the repository, to serve as the reference oracle.
# Reused when it already holds 0.3.36. Usage: scripts/build_oracle.sh PYTHON SDIST
set -euo pipefail
python=$1
sdist=$2
cache=${GGUFTOK_CACHE:-$HOME/.cache/gguftok}
venv=${GGUFTOK_ORACLE_VENV:-$cache/oracle-venv}

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import llama_cpp, sys; sys.exit(llama_cpp.__version__ != "0.3.36")' 2>/dev/null; then
    echo "oracle: reusing $venv (llama-cpp-python 0.3.36)"
    exit 0
fi
echo "oracle: building llama-cpp-python 0.3.36 into $venv (about 15 minutes on 2 cores); log in $cache/oracle-build.log"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
# No examples, tests, tools, server or llava; no -march=native, so the library runs on any x86-64 host.
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAVA_BUILD=OFF -DGGML_OPENMP=OFF"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
if ! "$venv/bin/pip" install --verbose "$sdist" >"$cache/oracle-build.log" 2>&1; then
    tail -n 30 "$cache/oracle-build.log" >&2
    echo "oracle: build failed; full log in $cache/oracle-build.log" >&2
    rm -rf "$venv"
    exit 1
fi
"$venv/bin/python" -c 'import llama_cpp; print("oracle: built llama-cpp-python", llama_cpp.__version__)'
