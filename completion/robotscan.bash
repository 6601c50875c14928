# bash completion for robotscan(1): commands, options and their values.
# Installed as $(PREFIX)/share/bash-completion/completions/robotscan.
#
# Commands and options are read from the binary's own help (`robotscan
# --help`, `robotscan COMMAND --help`: the usage and option lines), so they
# follow the binary being completed and never lag behind it. The values of
# enumerated options are listed here; tests/cli/test_completion_man.sh checks
# them against the binary (every --log-format it knows, every --format it
# accepts) and every option of every command's --help against this file's
# answers and the man pages.

declare -gA _robotscan_cache 2>/dev/null

# _robotscan_help BIN [COMMAND]: the help text (cached per binary and command)
_robotscan_help()
{
    local key="$1 $2"
    if [[ -z ${_robotscan_cache[$key]+set} ]]; then
        _robotscan_cache[$key]=$("$1" $2 --help 2>/dev/null)
    fi
    printf '%s\n' "${_robotscan_cache[$key]}"
}

# _robotscan_commands BIN: the commands `robotscan --help` lists
_robotscan_commands()
{
    _robotscan_help "$1" | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
                               on && $1 ~ /^[a-z][a-z]*$/ { print $1 }'
}

# _robotscan_options BIN COMMAND: "OPTION METAVAR" lines (METAVAR empty for a flag),
# from the option lines of the help (indented at most 6 columns, starting with -)
# and the options its usage lines name
_robotscan_options()
{
    _robotscan_help "$1" "$2" | awk '
        /^Usage:/ || /^ +robotscan / {
            for (i = 1; i <= NF; i++) {
                w = $i; gsub(/[][]/, "", w); sub(/[.=].*$/, "", w)
                if (w ~ /^--?[A-Za-z][-A-Za-z0-9]*$/ && !(w in opt)) opt[w] = ""
            }
            next
        }
        /^ +-/ {
            if (!match($0, /^ +/) || RLENGTH > 6) next
            line = substr($0, RLENGTH + 1); sub(/   *[^ ].*$/, "", line)
            n = split(line, parts, ", "); mv = ""
            for (i = n; i >= 1; i--) if (split(parts[i], ws, " ") > 1 && mv == "") mv = ws[2]
            for (i = 1; i <= n; i++) { m = split(parts[i], ws, " "); opt[ws[1]] = (m > 1 ? ws[2] : mv) }
        }
        END { for (o in opt) print o, opt[o] }' | sort
    echo "--help"
}

_robotscan()
{
    local cur prev bin cmd i w
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    bin=${COMP_WORDS[0]}
    [[ $bin == */* || -n $(type -P "$bin") ]] || bin=robotscan
    bin=${bin/#\~/$HOME}

    local commands
    commands=$(_robotscan_commands "$bin")
    # no binary to ask (not installed yet, not on PATH): the commands as of this file
    # (tests/cli/test_completion_man.sh keeps this list equal to --help's)
    [[ -n $commands ]] || commands="check urls logs lint diff survey sitemaps report shard merge bench"
    cmd=
    for ((i = 1; i < COMP_CWORD; i++)); do
        for w in $commands; do
            if [[ ${COMP_WORDS[i]} == "$w" ]]; then cmd=$w; break 2; fi
        done
    done
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi

    # Enumerated values (checked against the binary by the tests).
    case $prev in
        --format)
            case $cmd in
                lint)  COMPREPLY=($(compgen -W "text tsv csv" -- "$cur")) ;;
                merge) COMPREPLY=($(compgen -W "tsv csv jsonl" -- "$cur")) ;;
                *)     COMPREPLY=($(compgen -W "text tsv csv jsonl" -- "$cur")) ;;
            esac
            return ;;
        --semantics|--old-semantics|--new-semantics)
            COMPREPLY=($(compgen -W "google first-match" -- "$cur")); return ;;
        --only)
            if [[ $cmd == logs ]]; then COMPREPLY=($(compgen -W "violations" -- "$cur"))
            else COMPREPLY=($(compgen -W "allowed disallowed allow disallow" -- "$cur")); fi
            return ;;
        --missing)    COMPREPLY=($(compgen -W "allow disallow skip" -- "$cur")); return ;;
        --log-format)
            COMPREPLY=($(compgen -W "combined common vhost_combined alb cloudfront w3c json cloudflare auto" \
                -- "$cur"))
            return ;;
        --scheme)     COMPREPLY=($(compgen -W "https http" -- "$cur")); return ;;
        --by)         COMPREPLY=($(compgen -W "site" -- "$cur")); return ;;
        --agent)      COMPREPLY=($(compgen -W "Googlebot bingbot GPTBot CCBot Applebot YandexBot" -- "$cur")); return ;;
        --stats)      COMPREPLY=($(compgen -f -X '!*.json' -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
    esac

    local opts metavar
    opts=$(_robotscan_options "$bin" "$cmd")
    if [[ $prev == -* ]]; then
        metavar=$(printf '%s\n' "$opts" | awk -v o="$prev" '$1 == o { print $2; exit }')
        case $metavar in
            DIR)  COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
            *PATH*|*FILE*|*SOURCES*)
                  COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
            ?*)   return ;;   # a value to type: N, HOST, TOKEN, SIZE, TEXT, NAME=KEY
        esac
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(printf '%s\n' "$opts" | awk '{ print $1 }')" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
    fi
}
complete -F _robotscan robotscan
