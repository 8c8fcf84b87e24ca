#!/bin/bash
# A Slurm job array that spreads one `sprint ab` plan over N nodes: array task
# SLURM_ARRAY_TASK_ID (of a contiguous --array=1-N) runs
# `sprint ab … --shard K/N` (K from demo/harness/recipes/shard-arg.sh; the
# assignment is in demo/harness/shard.ts) and writes its results folder to a
# shared file system as $RESULTS_ROOT/$EVAL/shard-K-of-N. When every task has
# finished, merge the folders with
# `npx sprint report --out MERGED $RESULTS_ROOT/$EVAL/shard-*`
# (demo/harness/README.md, "Runs on several machines").
#
#   sbatch demo/harness/recipes/slurm-array.sh          # from a committed checkout on the shared FS
#
# Needs on every node: root for the testbed (here through passwordless
# `sudo -n`; network namespaces, tc and sysctls), chromium, ffmpeg, iproute2,
# tcpdump, ethtool, sch_tbf (tcp_bbr for --cc bbr), and the checkout built
# (`npm ci && npm run build && npm run extension:install`) with the content
# set generated once (`npx sprint content --set eval`). --exclusive keeps
# other jobs off the node: the harness flags runs whose load average
# exceeded the cores. N (the --array range) must be at most the plan's
# conditions × repeats (`sprint ab … --shard 1/N --dry-run` says if it is too many).
#SBATCH --job-name=sprint-eval
#SBATCH --array=1-16
#SBATCH --nodes=1
#SBATCH --ntasks=1
#SBATCH --exclusive
#SBATCH --time=24:00:00
#SBATCH --output=sprint-eval-%A-%a.log
set -euo pipefail

EVAL=${EVAL:-fig6}
RESULTS_ROOT=${RESULTS_ROOT:-$PWD/results}
# The plan: identical in every task (the plan hash must match to merge).
SPRINT_AB_ARGS=${SPRINT_AB_ARGS:-"--players stock,sprint-x,sprint --rate 1.5mbit,3mbit,6mbit,25mbit --queue 64kb,256kb,512kb,1536kb --bulk 1 --cc cubic --abr buffer --duration 5m --warmup 90s --primer 30s --repeat 2 --set eval --keep-going"}

cd "${SLURM_SUBMIT_DIR:-$PWD}"
SHARD=$(demo/harness/recipes/shard-arg.sh "$SLURM_ARRAY_TASK_ID" "${SLURM_ARRAY_TASK_MIN:-1}" "$SLURM_ARRAY_TASK_COUNT")
OUT="$RESULTS_ROOT/$EVAL/shard-${SHARD%/*}-of-${SLURM_ARRAY_TASK_COUNT}"
mkdir -p "$RESULTS_ROOT/$EVAL"
# --resume: a requeued task continues its folder instead of starting over.
# shellcheck disable=SC2086 # SPRINT_AB_ARGS is a list of words on purpose
# env PATH=…: sudo's secure_path would otherwise hide the user's node/npx.
exec sudo -n env "PATH=$PATH" ${SPRINT_COMMIT:+"SPRINT_COMMIT=$SPRINT_COMMIT"} npx sprint ab $SPRINT_AB_ARGS --shard "$SHARD" --results "$OUT" --resume
