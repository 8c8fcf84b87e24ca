#!/bin/sh
# The --shard argument of one job-array task, for the recipes in this folder
# (k8s-indexed-job.yaml, slurm-array.sh): prints K/N for `sprint ab --shard`,
# where K counts from 1 (demo/harness/shard.ts).
#
#   shard-arg.sh INDEX FIRST COUNT
#     INDEX  this task's index (Kubernetes JOB_COMPLETION_INDEX, Slurm SLURM_ARRAY_TASK_ID)
#     FIRST  the first index of the array (0 for an Indexed Job, SLURM_ARRAY_TASK_MIN for Slurm)
#     COUNT  the number of tasks, N (the Job's completions, SLURM_ARRAY_TASK_COUNT)
#
# The array must be contiguous (FIRST … FIRST+COUNT-1, no step): each task
# then gets a different K and together they give 1 … N.
set -eu
if [ "$#" -ne 3 ]; then
  echo "usage: shard-arg.sh INDEX FIRST COUNT" >&2
  exit 2
fi
for v in "$1" "$2" "$3"; do
  case "$v" in
    ''|*[!0-9]*) echo "shard-arg.sh: \"$v\" is not a whole number (INDEX FIRST COUNT: $1 $2 $3)" >&2; exit 2 ;;
  esac
done
index=$1 first=$2 count=$3
if [ "$count" -lt 1 ]; then
  echo "shard-arg.sh: COUNT must be at least 1" >&2
  exit 2
fi
if [ "$index" -lt "$first" ] || [ "$index" -ge $((first + count)) ]; then
  echo "shard-arg.sh: index $index is outside the array $first..$((first + count - 1)) (is the array contiguous, without a step?)" >&2
  exit 2
fi
echo "$((index - first + 1))/$count"
