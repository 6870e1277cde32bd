cdef class Guard:
    cdef public object bot          # the bot, once made
    cdef public str name            # its name, for messages
    cdef public int seat            # its seat
    cdef public bint alarm          # SIGALRM interrupts a hook at its time limit
    cdef public bint external       # an ExternalBot: its own deadlines; its faults pass
    cdef public double longest      # its slowest choose so far, seconds
    cdef public unsigned int skip   # bit h: hook h (HOOKS) is Bot's no-op: not called
    cdef double limit               # seconds a hook may take; < 0: no limit
    cdef double* slot               # the worker's watch slot (pid, game, seat, since, hook)
    cdef object watch               # the shared array slot points into (kept alive)

    cdef object call(self, int hook, tuple args)  # hook(*args) (INIT: args[0]()), guarded
    cdef object choose_move(self, observation, legal)  # choose(observation, legal), guarded
    cdef object _call(self, int hook, tuple args, observation, legal)  # CHOOSE: no args
    cdef object _fault(self, int hook, exc)
