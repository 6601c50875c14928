# bash completion for robotscan(1): commands, options and their values.
# Installed as $(PREFIX)/share/bash-completion/completions/robotscan.

_robotscan()
{
    local cur prev cmd i
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    cmd=
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            check|urls|logs|lint) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done

    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "check urls logs lint --help --version" -- "$cur"))
        return
    fi

    case $prev in
        --robots)     COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
        --stats)      COMPREPLY=($(compgen -f -X '!*.json' -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
        --format)
            if [[ $cmd == lint ]]; then COMPREPLY=($(compgen -W "text tsv csv jsonl" -- "$cur"))
            else COMPREPLY=($(compgen -W "text tsv csv jsonl" -- "$cur")); fi
            return ;;
        --semantics)  COMPREPLY=($(compgen -W "google first-match" -- "$cur")); return ;;
        --only)
            if [[ $cmd == logs ]]; then COMPREPLY=($(compgen -W "violations" -- "$cur"))
            else COMPREPLY=($(compgen -W "allowed disallowed allow disallow" -- "$cur")); fi
            return ;;
        --missing)    COMPREPLY=($(compgen -W "allow disallow skip" -- "$cur")); return ;;
        --log-format) COMPREPLY=($(compgen -W "combined common vhost_combined" -- "$cur")); return ;;
        --scheme)     COMPREPLY=($(compgen -W "https http" -- "$cur")); return ;;
        --agent)      COMPREPLY=($(compgen -W "Googlebot Bingbot GPTBot CCBot Applebot YandexBot" -- "$cur")); return ;;
        --host|-j|--jobs) return ;;
    esac

    local opts
    case $cmd in
        check) opts="--robots --agent --format --encode-urls --semantics --batch --help" ;;
        urls)  opts="--robots --agent --format --only --quiet --stats --missing --encode-urls
                     --semantics -j --jobs --verbose --progress --no-progress --fail-on-disallowed --help" ;;
        logs)  opts="--robots --host --scheme --log-format --agent --format --only --quiet --stats
                     --semantics -j --jobs --verbose --progress --no-progress --fail-on-violation --help" ;;
        lint)  opts="--format --agent --help" ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
        compopt -o filenames 2>/dev/null
    fi
}
complete -F _robotscan robotscan
