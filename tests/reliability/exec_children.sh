#!/bin/sh
# An exec'd-children case for the reliability tests: a shell (no CUDA) that
# starts two CUDA programs, one in the background, and checks their status.
# Usage: exec_children.sh REL_OPS_BINARY
rel=$1
"$rel" return &
bg=$!
"$rel" exit
fg=$?
wait $bg
bgrc=$?
echo "exec_children: return=$bgrc exit=$fg"
[ "$bgrc" = 0 ] && [ "$fg" = 5 ]
