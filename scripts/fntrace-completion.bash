# bash completion for fntrace                               -*- shell-script -*-
# Installed as share/bash-completion/completions/fntrace.  Commands and
# options come from fntrace's own help, so they never fall behind it;
# function names for -F/-N/-H/-C/-T/-A/-R/graph come from the trace being
# read (its report, names only), --format values from the command's help;
# -T FUNC@ completes the trigger actions.

_fntrace_trace_dir()
{
	# the -d/--data/--output given on the line so far, else fntrace.data
	local i dir=fntrace.data
	for ((i = 2; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-d | --data | --output) dir=${COMP_WORDS[i + 1]} ;;
		--data=* | --output=*) dir=${COMP_WORDS[i]#*=} ;;
		esac
	done
	printf '%s\n' "$dir"
}

_fntrace_functions()
{
	local dir
	dir=$(_fntrace_trace_dir)
	[ -d "$dir" ] || return
	"$1" report -d "$dir" --format csv 2>/dev/null | tail -n +2 | sed -e 's/^"\(\([^"]\|""\)*\)",.*/\1/' \
		-e 's/^\([^,"]*\),.*/\1/' -e 's/""/"/g'
}

_fntrace()
{
	local cur prev fntrace=${COMP_WORDS[0]} cmd words
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	if ((COMP_CWORD == 1)); then
		words=$("$fntrace" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z-]\+\) .*/\1/p')
		COMPREPLY=($(compgen -W "$words --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	# after "--" in record/live: the program and its arguments
	local i
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = "--" ]; then
			COMPREPLY=($(compgen -f -- "$cur"))
			return
		fi
	done
	case $prev in
	-d | --data | --output | --debug-dir)
		if { [ "$cmd" = export ] || [ "$cmd" = archive ] || [ "$cmd" = perf-inject ]; } && [ "$prev" = --output ]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		else
			COMPREPLY=($(compgen -d -- "$cur"))
		fi
		return ;;
	-o | -i | --input) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--format | -f)
		if [ "$cmd" = replay ] && [ "$prev" = -f ]; then
			return
		fi
		# export: its "Formats:" list; report/replay: the --format line
		words=$("$fntrace" "$cmd" --help 2>/dev/null | sed -n \
			-e '/Formats:$/,/^$/s/^  \([a-z][a-z0-9]*\)  .*/\1/p' \
			-e '/--format/{s/([^)]*default)//;s/.*--format [A-Z]* *//;s/^\([a-z][a-z, ]*\).*/\1/;s/,\| or / /g;p}' |
			grep -oE '^[a-z][a-z0-9 ]*' | tr ' ' '\n' | grep -vE '^(one|of|the|formats|above|required|object|per|call)?$')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return ;;
	-s | --sort)
		COMPREPLY=($(compgen -W "total self calls avg max min name" -- "$cur"))
		return ;;
	--color | --colour)
		COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
		return ;;
	--clock)
		COMPREPLY=($(compgen -W "tsc monotonic" -- "$cur"))
		return ;;
	--demangle)
		COMPREPLY=($(compgen -W "full short simple no" -- "$cur"))
		return ;;
	-T | --trigger)
		if [[ $cur == *@* ]]; then
			# FUNC@ACTION[,ACTION...]: the actions after the last @ or ,
			COMPREPLY=($(compgen -P "${cur%"${cur##*[@,]}"}" -W "trace_on trace_off depth= backtrace finish time= \
				hide filter notrace snapshot" -- "${cur##*[@,]}"))
			compopt -o nospace 2>/dev/null
		else
			local IFS=$'\n'
			COMPREPLY=($(compgen -S @ -W "$(_fntrace_functions "$fntrace")" -- "$cur"))
			compopt -o nospace 2>/dev/null
		fi
		return ;;
	-F | --filter | -N | --notrace | -H | --hide | -C | --caller-filter | -A | --argument | -R | --retval | --patch | -P)
		local IFS=$'\n'
		COMPREPLY=($(compgen -W "$(_fntrace_functions "$fntrace")" -- "$cur"))
		return ;;
	esac
	if [[ $cur == -* ]]; then
		# the options of the command's help (its option lines only)
		words=$("$fntrace" "$cmd" --help 2>/dev/null | grep -E '^ {1,8}-' | sed -E 's/^ +//; s/  .*//' |
			grep -oE -- '--?[A-Za-z][A-Za-z-]*' | sort -u)
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return
	fi
	case $cmd in
	record | live) COMPREPLY=($(compgen -c -- "$cur")) ;;
	graph)
		local IFS=$'\n'
		COMPREPLY=($(compgen -W "$(_fntrace_functions "$fntrace")" -- "$cur")) ;;
	esac
} &&
	complete -F _fntrace fntrace
