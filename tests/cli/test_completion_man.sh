#!/usr/bin/env bash
# Completion and man pages follow `--help` (issue 29 item 4). Read at test time,
# so a new command or option in a command's --help fails here until the
# completion offers it and the man page names it:
#  * `robotscan <TAB>` offers every command of `robotscan --help`;
#  * `robotscan CMD --<TAB>` offers every option of `robotscan CMD --help`
#    (its usage and option lines, parsed here independently of the completion);
#  * man/robotscan-CMD.1 exists for every command and names every one of those
#    options; robotscan(1) names every command; README's install list names every page;
#  * `--log-format <TAB>` offers every format name the binary knows (its own list,
#    from the error for an unknown name), and `logs --help` names each.
# Usage: bash tests/cli/test_completion_man.sh ./robotscan SHARED_DIR
set -u
BIN=${1:-./robotscan}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/lib/helpers.sh"
BIN_ABS=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
COMP=$ROOT/completion/robotscan.bash

# comp WORD... : what the completion offers for the command line WORD... (the last word is completed)
comp() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _robotscan
             printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" "$@" 2>"$T/comp.err"
    [ -s "$T/comp.err" ] && fail "completion of '$*' wrote to stderr: $(head -c 300 "$T/comp.err")"
}

# options_of CMD : the options `robotscan CMD --help` names in its usage and option lines
options_of() {
    "$BIN" "$1" --help | python3 -c '
import re, sys
opts = set()
for line in sys.stdin.read().splitlines():
    usage = line.startswith("Usage:") or re.match(r"^ +robotscan ", line)
    m = re.match(r"^( {0,6})(-.*)", line)
    if usage:
        part = line
    elif m and (m.group(1) or re.match(r"^--[a-z-]+:", m.group(2))):
        part = re.split(r"(?<=\S) {2,}|: ", m.group(2))[0]   # the option column (or "--records:")
    else:
        continue
    opts.update(re.findall(r"(?<![\w-])(--?[A-Za-z][-A-Za-z0-9]*)", part))
opts.add("--help")
print("\n".join(sorted(opts)))'
}

# roff_text FILE : the man page as plain words (\- -> -, font changes dropped)
roff_text() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(em/ /g' "$1"; }

mapfile -t CMDS < <("$BIN" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
[ "${#CMDS[@]}" -ge 10 ] || fail "robotscan --help lists ${#CMDS[@]} commands: ${CMDS[*]}"

# --- commands
comp "$BIN_ABS" "" > "$T/top"
for c in "${CMDS[@]}" --help --version; do
    grep -qx -- "$c" "$T/top" || fail "robotscan <TAB> does not offer $c (offers: $(tr '\n' ' ' < "$T/top"))"
done
# without a binary to ask, the completion's own list: the same commands
comp /nonexistent/robotscan "" > "$T/top-nobin"
for c in "${CMDS[@]}"; do
    grep -qx -- "$c" "$T/top-nobin" || fail "without a binary, robotscan <TAB> does not offer $c"
done
roff_text "$ROOT/man/robotscan.1" > "$T/main.txt"
for c in "${CMDS[@]}"; do
    grep -q "robotscan-$c" "$T/main.txt" || fail "robotscan(1) does not name robotscan-$c(1)"
    grep -q "robotscan-$c(1)\|-$c(1)" "$ROOT/README.md" || fail "README's install list does not name robotscan-$c(1)"
done

# --- options of every command: completion and man page
for c in "${CMDS[@]}"; do
    options_of "$c" > "$T/opts-$c"
    [ -s "$T/opts-$c" ] || { fail "$c --help: no options found"; continue; }
    comp "$BIN_ABS" "$c" - > "$T/comp-$c"
    page=$ROOT/man/robotscan-$c.1
    [ -f "$page" ] || { fail "no man page man/robotscan-$c.1"; continue; }
    roff_text "$page" > "$T/man-$c.txt"
    while read -r o; do
        grep -qx -- "$o" "$T/comp-$c" || fail "robotscan $c $o: not offered by the completion"
        [ "$o" = --help ] && continue
        grep -Eq -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|\$)" "$T/man-$c.txt" \
            || fail "man robotscan-$c: does not name $o (robotscan $c --help does)"
    done < "$T/opts-$c"
done

# --- option values: every --log-format name the binary knows
"$BIN" logs --robots /dev/null --log-format no-such-format /dev/null >/dev/null 2>"$T/lf.err"
names=$(sed -n 's/.*not a format name (\([^)]*\)).*/\1/p' "$T/lf.err" | tr -d ',')
[ -n "$names" ] || fail "no format list in the error for an unknown --log-format: $(head -c 300 "$T/lf.err")"
comp "$BIN_ABS" logs --log-format "" > "$T/lf.comp"
comp "$BIN_ABS" shard --log-format "" > "$T/lf.comp-shard"
"$BIN" logs --help > "$T/logs.help"
for f in $names; do
    grep -qx "$f" "$T/lf.comp" || fail "logs --log-format <TAB> does not offer $f"
    grep -qx "$f" "$T/lf.comp-shard" || fail "shard --log-format <TAB> does not offer $f"
    grep -Eq "(^|[^a-z_])$f([^a-z_]|\$)" "$T/logs.help" || fail "logs --help does not name the format $f"
done
while read -r f; do
    case " $names " in *" $f "*) ;; *) fail "--log-format <TAB> offers $f, which the binary does not know";; esac
done < "$T/lf.comp"
# values to type are not completed as files; paths are
comp "$BIN_ABS" logs -j "" > "$T/j.comp"
grep -q . "$T/j.comp" && fail "-j <TAB> offers files: $(head -3 "$T/j.comp" | tr '\n' ' ')"
comp "$BIN_ABS" shard --out "$ROOT/RE" > "$T/out.comp"
grep -q README "$T/out.comp" && fail "shard --out <TAB> offers a file (README.md) for a DIR"
comp "$BIN_ABS" logs --robots "$ROOT/RE" > "$T/rob.comp"
grep -q README.md "$T/rob.comp" || fail "logs --robots <TAB> does not offer files"
finish
