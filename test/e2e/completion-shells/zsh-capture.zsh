# Drives a real interactive zsh (on a pseudo-terminal, zsh/zpty) to press TAB after a command line,
# and prints what the completion system offered: one "__KK_MATCH__:<word>" line per candidate passed
# to compadd, "__KK_NOSPACE__" when a candidate is added without a trailing space.
# Usage: zsh -f zsh-capture.zsh SETUP_FILE LINE
#   SETUP_FILE is sourced in the interactive shell before compinit's completion runs (fpath, compinit
#   or `source <(kubectl-kruise completion zsh)`), after this file's capturing compadd is defined.
zmodload zsh/zpty || { print -u2 'zsh/zpty is missing'; exit 2 }
setup=$1 line=$2
zpty kk zsh -f -i
# Inside the interactive shell: no prompt, TAB runs complete-word, every compadd call is recorded
# (then made for real), and the shell prints __KK_DONE__ once the completion widget is done.
zpty -w kk "PS1='' RPS1='' PROMPT2=''; unsetopt beep"
zpty -w kk 'compadd() { local -a __kk_m; builtin compadd -O __kk_m "$@"; local a; for a in "${__kk_m[@]}"; do print -r -- "__KK_MATCH__:$a"; done; (( ${@[(I)-S]} )) && [[ -z ${@[${@[(I)-S]}+1]} ]] && print -r -- "__KK_NOSPACE__"; builtin compadd "$@" }'
zpty -w kk "source ${(q)setup}"
# After the setup: compinit empties comppostfuncs.
zpty -w kk '__kk_done() { print -r -- "__KK_DONE__" }; comppostfuncs=(__kk_done)'
zpty -w kk 'bindkey "^I" complete-word; print -r -- __KK_READY""__'
local out
while zpty -r kk out; do
  [[ $out == *__KK_ERROR__* || $out == __KK_READY__* ]] && break
done
[[ $out == __KK_READY__* ]] || { print -u2 'the interactive zsh did not start'; exit 2 }
zpty -w -n kk "$line"$'\t'
while zpty -r kk out; do
  print -r -- "${out%$'\r'*}"
  [[ $out == *__KK_DONE__* ]] && break
done
zpty -d kk
