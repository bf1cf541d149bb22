#!/usr/bin/env bash
# CI's check over the commits of a change: every subject in BASE..HEAD fits in 72 characters
# (installer/commit_msg_check.py --length-only; merges, reverts and fixup!/squash! subjects
# pass). The offending commits are printed, one a line, and the exit status is 1.
#
# Usage: installer/check_commits.sh [BASE]
#   BASE defaults to the cut-off below, so a fresh clone of main checks every commit made since
#   the check was added; on a branch, `installer/check_commits.sh origin/main` checks only the
#   branch's own commits. Commits older than the cut-off are never checked (hundreds of them
#   have longer subjects, written before the habit). ENGRAM_COMMITS_CUTOFF overrides the cut-off.
# Outside a git checkout (an unpacked source archive) there is nothing to check: exit 0.
set -euo pipefail

# HEAD when this check was written; its commit time is the fallback for a clone that lacks it
# (a shallow clone, another repository): then commits made after that time are checked.
cutoff="${ENGRAM_COMMITS_CUTOFF-4d1c0437ac90c6930668ff3a6872143526ac4060}"
cutoff_time=1796336301

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1 || ! git rev-parse -q --verify HEAD >/dev/null; then
    echo "engram: not a git checkout with commits; no commit subjects to check"
    exit 0
fi

range=(HEAD)
[ $# -gt 0 ] && range+=("^$1")
if [ -n "$cutoff" ] && git rev-parse -q --verify "$cutoff^{commit}" >/dev/null; then
    range+=("^$cutoff")
elif [ -n "$cutoff" ] && [ $# -eq 0 ]; then
    range+=("--since=@$((cutoff_time + 1))")
fi

bad=0
checked=0
while IFS=$'\t' read -r hash subject; do
    checked=$((checked + 1))
    if ! "$python" "$here/commit_msg_check.py" --length-only --subject "$subject" 2>/dev/null; then
        echo "  ${hash:0:10} $subject"
        bad=$((bad + 1))
    fi
done < <(git log --no-merges --format='%H%x09%s' "${range[@]}" --)

if [ "$bad" -gt 0 ]; then
    echo "engram: $bad of $checked commit subjects are longer than 72 characters (above);" \
        "shorten them (git rebase -i, reword) and put the rest in the body"
    exit 1
fi
echo "engram: $checked commit subjects checked, each within 72 characters"
