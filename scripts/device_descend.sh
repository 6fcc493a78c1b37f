#!/usr/bin/env bash
# The descent over Z through GF(2) (docs/search.md, "The lifting walk"; issue
# 23), one call on the GPU machine.  A GF(2) scheme lifts to Z or not by the
# region of the flip graph it lies in: every distinct neighbour met at rank 62
# from the mod-2 image of a Z <4,4,5>:62 lifted (18776 of 18776), none of 4096
# from our GF(2) 60 and 61 (bench/RESULTS.md).  So the GF(2) walk, three times
# faster than the walk over Z on the GPU and with more flips (factors equal
# mod 2), starts from the mod-2 images of Z schemes and every lower scheme it
# stores is lifted:
#   check    tests/gpu_z (FLIPGRAPH_SEED=1): the kernels over Z against the core;
#   descend  `flipgraph search --backend gpu` over GF(2) from each file of
#            STARTS (Z schemes, read mod 2; the word "standard": the standard
#            algorithm), seeds SEEDS, TD each (default 40s), once per option
#            set of VARIANTS (';'-separated, e.g. "--plus-max 4;--plateau 5000"),
#            to the GF(2) record, into one fresh store;
#   lift     `flipgraph sweep --ring z --lift 64 --lift-walk LW --until-record`
#            on that store: the lowest GF(2) schemes lifted, the lifting walk
#            where none reaches the Z record, then a short Z walk.
# Everything goes to $OUT (descend.log, descend.db).  Carry deps/ and the
# folder of STARTS (docs/device.md).
# PROGRESS=20s logs a progress row every 20 s of each descend run (rank against
# time) where the default logs only its last line.
# Usage: OUT=out STARTS="out/descend/*.exp" [SEEDS="1"] [TD=40s] [LW=60s] [VARIANTS=...]
#        [DIMS=4x4x5] [PROGRESS=20s] [STEPS="check descend lift"] bash scripts/device_descend.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-out}
STARTS=${STARTS:-out/descend/*.exp}
SEEDS=${SEEDS:-1}
TD=${TD:-40s}
LW=${LW:-60s}
DIMS=${DIMS:-4x4x5}
STEPS=${STEPS:-check descend lift}
QUIET=(-q)
[ -n "${PROGRESS:-}" ] && QUIET=(--progress "$PROGRESS")
. scripts/device_env.sh
fg_begin descend.log
fg_build flipgraph gpu_z || exit 2
F=$B/flipgraph
fg_banner "steps: $STEPS"
if fg_wants check; then
  fg_step "tests/gpu_z (FLIPGRAPH_SEED=1)" 300 env FLIPGRAPH_SEED=1 $B/gpu_z
  tail -3 "$LOG"
fi
DB=$OUT/descend.db
rm -f "$DB"
if fg_wants descend; then
  IFS=';' read -r -a variants <<< "${VARIANTS:-}"
  [ ${#variants[@]} -gt 0 ] || variants=("")
  for f in $STARTS; do
    for s in $SEEDS; do
      for v in "${variants[@]}"; do
        from=(--from "$f")
        [ "$f" = standard ] && from=()
        # shellcheck disable=SC2086 # a variant is a list of options
        fg_step "GF(2) from $f (mod 2), seed $s, $TD ${v:-(defaults)}" 600 $F search --dims $DIMS "${from[@]}" \
          --backend gpu --time $TD --seed $s --target-rank 0 --db "$DB" "${QUIET[@]}" $v
        grep -E '^best rank' "$LOG" | tail -1
      done
    done
  done
  $F db --db "$DB" list --dims $DIMS --ring f2 --limit 12 | tee -a "$LOG"
fi
if fg_wants lift; then
  fg_step "sweep --ring z --lift 64 --lift-walk $LW" 600 $F sweep --dims-list $DIMS --ring z --lift 64 \
    --lift-walk $LW --db "$DB" --until-record --time-per 20s --backend gpu --seed 1
  grep -E 'lifted|lifting walk|best|record' "$LOG" | tail -8
  $F db --db "$DB" list --dims $DIMS --ring z --limit 8 | tee -a "$LOG"
fi
fg_say "done"
