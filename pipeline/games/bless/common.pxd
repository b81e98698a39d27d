# Cython declarations for common.py (compiled by setup.py; the .py stays plain Python):
# the game's fields as C struct members and the bookkeeping helpers as C-callable methods.
from .compiler cimport Reader


cdef class Decision:
    cdef public object about, kind, options, player, resume


cdef class GameFields(Reader):
    cdef public set _busy
    cdef public dict _collected
    cdef public object _fx
    cdef public object _fx_base
    cdef public object _fx_more
    cdef public dict _sources
    cdef public dict _vals
    cdef public object actions
    cdef public object active
    cdef public object altar_limit
    cdef public object attacked
    cdef public object barrier
    cdef public object blessed
    cdef public object bonus
    cdef public object chance
    cdef public object deck
    cdef public object end_now
    cdef public object final_by
    cdef public object final_how
    cdef public object final_last
    cdef public object first
    cdef public object host
    cdef public object invoked
    cdef public object known
    cdef public object lasting
    cdef public object log
    cdef public object max_turns
    cdef public object num_players
    cdef public object over
    cdef public Decision pending
    cdef public object responded
    cdef public object scores
    cdef public object since
    cdef public object stack
    cdef public object triggers
    cdef public object ts
    cdef public object turn
    cdef public object version
    cdef public object winner

    cpdef _log(self, kind, player, args=*)
    cpdef _push(self, task)
    cpdef _tick(self)
    cpdef _decide(self, player, kind, options, resume, about)
    cpdef _trigger(self, ab, user, this, host=*)


# the Mulligan's options and its check, called in C by state.py (state.pxd cimports them)
cpdef list subsets(tuple cards)
cpdef bint is_subset(chosen, tuple cards)

# the Occhio of a clash, called in C by turns.py (turns.pxd cimports it)
cpdef long clash_eye(tuple mine, tuple theirs)
