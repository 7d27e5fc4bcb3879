#!/bin/sh
# Every module in DIR exports exactly one symbol, the descriptor trnsim_plugin.
dir=$1
n=0
for so in "$dir"/trnsim-*.so; do
  [ -e "$so" ] || continue
  case "$(basename "$so")" in trnsim-bad4.so) continue ;; esac  # the no-descriptor fixture
  syms=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v -x -e _init -e _fini -e __bss_start -e _edata -e _end | grep -v "^__odr_asan" | sort | tr '\n' ' ')
  if [ "$syms" != "trnsim_plugin " ]; then
    echo "FAIL: $so exports: $syms"
    exit 1
  fi
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "FAIL: no modules in $dir"; exit 1; }
echo "ok: $n modules export only trnsim_plugin"
