"""The referee: plays a round between bots (``bones.play_round``), and the guard that every
hook of a match's bot runs under.

The loop and the guard are compiled because a match pays for them on every move: in
Python they cost the runner several microseconds a move, more than the engine itself.
What they do is docs/matches.md's "Faults"; ``bones.match.driver`` builds the guards."""

import signal

from cpython.exc cimport PyErr_CheckSignals
from cpython.ref cimport Py_REFCNT

from bones.core.bitops cimport monotonic
from bones.core.moves cimport Move
from bones.core.round cimport Round
from bones.core.seatview cimport SeatView
from bones.core.state cimport PLAYING, find_move
from bones.core.trains cimport TrainMove, TrainRound, TrainSeatView
from bones.core.trainstate cimport TR_PLAYING

#: The hooks of a bot, by the code a worker writes in its watch slot.
HOOKS = (
    "__init__",
    "start_game",
    "start_round",
    "observe",
    "choose",
    "end_round",
    "end_game",
    "__del__",
)
cdef enum:
    INIT, START_GAME, START_ROUND, OBSERVE, CHOOSE, END_ROUND, END_GAME, DEL
cdef tuple _HOOKS = HOOKS
SLOT = 5  # doubles per worker slot: pid, game id, seat, since, hook


def now():
    """The referee's clock, in seconds: ``time.monotonic()``'s."""
    return monotonic()


# --- the alarm ---------------------------------------------------------------------------
# One interval timer serves every hook of a process, without a system call per hook: a
# hook sets _deadline, and the timer is armed only when it would fire after that deadline
# (or is not armed).  When it fires, on_alarm raises Alarm in a hook past its deadline,
# re-arms for the deadline of a hook still within it, and otherwise lets the timer rest
# until the next hook arms it.  So the timer fires about once per time limit, not per move.

cdef double _deadline = 0.0  # monotonic() at which the running hook is out of time; 0: none
cdef double _armed = 0.0     # monotonic() at which the timer fires; 0: not armed
cdef bint _user_interrupt = False  # the user pressed Ctrl-C (not a bot raising it)


class Alarm(BaseException):
    """Raised by SIGALRM inside a bot that overruns its time (a BaseException, so a bot's
    ``except Exception`` does not swallow it; a bot that swallows even this one is killed
    by the runner's watchdog)."""


cdef void arm(double seconds) except *:
    global _armed
    seconds = max(seconds, 1e-4)
    _armed = monotonic() + seconds
    signal.setitimer(signal.ITIMER_REAL, seconds)


def disarm():
    """Stop the interval timer (if armed) and forget any deadline."""
    global _armed, _deadline
    _deadline = 0.0
    if _armed:
        _armed = 0.0
        signal.setitimer(signal.ITIMER_REAL, 0)


def on_alarm(signum, frame):
    """The SIGALRM handler (installed by whoever arms guards with ``alarm=True``)."""
    global _armed
    _armed = 0.0
    if _deadline:
        left = _deadline - monotonic()
        if left <= 0:
            raise Alarm()
        arm(left)


def alarm_state():
    """``(deadline, armed)``: both 0.0 when no hook is running and the timer rests."""
    return _deadline, _armed


def set_user_interrupt(bint value):
    """Mark a KeyboardInterrupt as the user's own (it passes a guard) or clear the mark."""
    global _user_interrupt
    _user_interrupt = value


def user_interrupt():
    """Whether the user pressed Ctrl-C (see :func:`set_user_interrupt`)."""
    return _user_interrupt


# --- errors, imported on first use (bones.bot imports this module) ----------------------

cdef object _BotError = None
cdef object _MoveTimeout = None
cdef object _Bot = None


cdef void _imports() except *:
    global _BotError, _MoveTimeout, _Bot
    if _BotError is None:
        from bones.botbase import Bot, BotError

        class MoveTimeout(BotError):
            """A bot took longer than its time for a move or a hook."""

        MoveTimeout.__module__ = "bones.core.referee"
        _Bot, _BotError, _MoveTimeout = Bot, BotError, MoveTimeout


def move_timeout():
    """The class of a timeout's BotError (a subclass of :class:`bones.BotError`)."""
    _imports()
    return _MoveTimeout


cdef str _text(obj, int limit=200):
    """``str(obj)`` of something a bot made, without trusting it."""
    try:
        text = str(obj)
        if type(text) is not str:
            raise TypeError
    except BaseException:  # a bot's __str__ may raise anything
        return "<unprintable>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


cdef str _type_name(obj):
    try:
        name = type(obj).__name__
        return name if type(name) is str else "?"
    except BaseException:
        return "?"


def raised(exc):
    """``"ValueError: boom"`` for an exception a bot raised (``SystemExit: 0`` for
    ``sys.exit(0)``)."""
    text = _text(exc)
    name = _type_name(exc)
    return f"{name}: {text}" if text else name


def describe(obj):
    """What a bot answered, for an error message, without calling any of its methods
    (its ``__repr__`` or ``__str__`` may raise, or lie): the type, and the value of a
    plain None, bool, int, float or str."""
    kind = type(obj)
    if obj is None or kind in (bool, int, float, str):
        text = repr(obj)
        return f"{kind.__name__} {text if len(text) <= 60 else text[:57] + '...'}"
    try:
        name = kind.__qualname__
    except BaseException:
        name = "?"
    return f"an object of type {name if isinstance(name, str) else '?'}"


# --- the guard ---------------------------------------------------------------------------

cdef class Guard:
    """A bot as the referee sees it in a match.  Every hook goes through one call, which

    * marks the seat and the hook in the worker's watch slot (the parent kills a worker
      whose hook overruns the hard limit, whatever the bot does);
    * interrupts the hook at the time limit with SIGALRM (every hook but ``observe``,
      which is called for every event and is left to the clock check and the watchdog);
    * times the call: a hook slower than the limit is a timeout even if it returned;
    * turns anything the hook raises, ``BaseException`` included (``sys.exit``,
      ``KeyboardInterrupt`` raised by a bot, ...), into a :class:`~bones.BotError` of
      this seat; only the user's own Ctrl-C passes.

    ``watch`` is the worker's shared array of doubles and ``slot`` its slot in it (None:
    not a worker).  A hook whose bit is set in ``skip`` is :class:`bones.Bot`'s own,
    which does nothing: it is not called (and its arguments are not built)."""

    def __cinit__(self):
        self.limit = -1.0  # no limit until __init__ says otherwise

    def __init__(self, bot, int seat, str name, timeout, bint alarm, watch=None,
                 int slot=0):
        self.bot = bot
        self.seat = seat
        self.name = name
        self.timeout = timeout
        self.alarm = alarm and timeout is not None
        cdef double[::1] view
        if watch is not None:
            view = watch
            if slot < 0 or (slot + 1) * SLOT > view.shape[0]:
                raise ValueError(f"no watch slot {slot} in an array of {view.shape[0]}")
            self.watch = watch
            self.slot = &view[SLOT * slot]

    @property
    def timeout(self):
        """Seconds a hook may take, or None."""
        return None if self.limit < 0 else self.limit

    @timeout.setter
    def timeout(self, value):
        cdef double limit = -1.0 if value is None else float(value)
        if limit != limit:
            raise ValueError("a time limit must be a number of seconds, not NaN")
        self.limit = -1.0 if value is None else max(limit, 0.0)

    cdef object call(self, int hook, tuple args):
        if hook == CHOOSE:
            return self._call(hook, None, args[0], args[1])
        return self._call(hook, args, None, None)

    cdef object choose_move(self, observation, legal):
        # no argument tuple to make and drop at every decision
        return self._call(CHOOSE, None, observation, legal)

    cdef object _call(self, int hook, tuple args, observation, legal):
        global _deadline
        cdef double start = monotonic(), elapsed, deadline
        cdef double* slot = self.slot
        if slot:
            slot[2] = self.seat
            slot[4] = hook
            slot[3] = start
        try:
            try:
                if self.alarm and hook != OBSERVE and self.limit >= 0:
                    deadline = start + self.limit
                    if not _armed or deadline < _armed:
                        arm(self.limit)
                    _deadline = deadline
                try:
                    if hook == CHOOSE:  # the bot's attribute lookup too is its code, guarded
                        value = self.bot.choose(observation, legal)
                    elif hook == INIT:
                        value = args[0]()
                    else:
                        value = getattr(self.bot, _HOOKS[hook])(*args)
                finally:
                    _deadline = 0.0
            except Alarm:
                _deadline = 0.0  # the alarm may have cut the finally short
                raise _MoveTimeout(
                    self.seat,
                    f"{self.name} gave no answer from {_HOOKS[hook]}() within "
                    f"{self.limit:g}s (interrupted)",
                ) from None
        except BaseException as exc:
            fault = self._fault(hook, exc)
            if fault is exc:
                raise
            raise fault from exc
        finally:
            if slot:
                slot[2] = -1.0  # the engine's part: "since" stays the hook's start
        elapsed = monotonic() - start
        if hook == CHOOSE and elapsed > self.longest:
            self.longest = elapsed
        if self.limit >= 0 and elapsed > self.limit:
            what = "a move" if hook == CHOOSE else f"{_HOOKS[hook]}()"
            raise _MoveTimeout(
                self.seat, f"{self.name} took {elapsed:.3f}s for {what} (limit {self.limit:g}s)"
            )
        return value

    cdef object _fault(self, int hook, exc):
        """The exception a hook's ``exc`` becomes."""
        if isinstance(exc, _BotError):
            if exc.seat == self.seat and (isinstance(exc, _MoveTimeout) or self.external):
                return exc  # its own timeout, or an external bot's fault
        elif isinstance(exc, KeyboardInterrupt) and _user_interrupt:
            return exc
        return _BotError(self.seat, f"{self.name}.{_HOOKS[hook]}() raised {raised(exc)}")

    def make(self, factory):
        """``factory()`` (which makes the bot) under the guard, as its ``__init__``."""
        _imports()
        return self.call(INIT, (factory,))

    def start_game(self, *args):
        if not self.skip & (1 << START_GAME):
            _imports()
            self.call(START_GAME, args)

    def start_round(self, *args):
        if not self.skip & (1 << START_ROUND):
            _imports()
            self.call(START_ROUND, args)

    def observe(self, *args):
        if not self.skip & (1 << OBSERVE):
            _imports()
            self.call(OBSERVE, args)

    def choose(self, observation, legal_moves):
        _imports()
        return self.choose_move(observation, legal_moves)

    def end_round(self, *args):
        if not self.skip & (1 << END_ROUND):
            _imports()
            self.call(END_ROUND, args)

    def end_game(self, *args):
        if not self.skip & (1 << END_GAME):
            _imports()
            self.call(END_GAME, args)


# --- the round ---------------------------------------------------------------------------

cdef bint _noop(bot, int hook) except -1:
    """Whether ``bot``'s ``hook`` does nothing: a guard's skipped hook, or a bot's hook
    that is :class:`bones.Bot`'s own."""
    if type(bot) is Guard:
        return (<Guard>bot).skip >> hook & 1
    name = _HOOKS[hook]
    return getattr(getattr(bot, name, None), "__func__", None) is getattr(_Bot, name)


cdef object _hook(int seat, bot, int hook, tuple args):
    """``bot.<hook>(*args)``; anything it raises but a BotError becomes one of ``seat``."""
    if type(bot) is Guard:
        return (<Guard>bot).call(hook, args)
    try:
        return getattr(bot, _HOOKS[hook])(*args)
    except _BotError:
        raise
    except Exception as exc:
        name = getattr(bot, "name", "") or type(bot).__name__
        what = f"{type(exc).__name__}: {exc}"
        raise _BotError(seat, f"{name}.{_HOOKS[hook]}() raised {what}") from exc


cdef Py_ssize_t _deliver(Round round, list observers, Py_ssize_t seen) except -1:
    """Hand the events from ``seen`` on to every observer; the new count of events."""
    cdef list events = round._event_list()
    cdef Py_ssize_t n = len(events), i
    for i in range(seen, n):
        event = events[i]
        for seat, bot in observers:
            _hook(seat, bot, OBSERVE, (event,))
    return n


def play_round(round not None, bots):
    """Play ``round`` (a :class:`bones.Round`, or a train game's round) to its end with
    ``bots[seat]`` for each seat; return its :class:`~bones.RoundResult`.

    Each bot gets ``start_round(round.observation(seat))``; then every event already in
    the round and every public event that follows, in order, through ``observe``; the bot
    to move gets ``choose(observation, legal_moves)``; at the end ``end_round(result,
    observation)``.  Bots never see the round itself, another hand or the stock.  A bot
    that answers anything but one of the legal moves, or whose hook raises, raises
    :class:`BotError` naming the seat.  ``start_game``/``end_game`` are the caller's.
    A hook that a bot keeps from :class:`bones.Bot` (which does nothing) is not called,
    and its observations are not built.
    """
    if type(round) is Round:
        return _play(<Round>round, bots)
    if type(round) is TrainRound:
        return _play_trains(<TrainRound>round, bots)
    from bones.api import Round as AnyRound

    if isinstance(round, AnyRound):  # another family's: through its Python face
        return _play_any(round, bots)
    raise TypeError(f"play_round: a bones.Round, not {describe(round)}")


cdef object _play_any(round, bots):
    """:func:`play_round` for a round of a family without a loop here (a plugin's): the
    same hooks in the same order, through the ``bones.Round`` interface.  A bot's answer
    must be one of the legal moves, of their own type."""
    cdef tuple seats = tuple(bots)
    cdef int seat
    cdef Py_ssize_t seen = 0
    cdef list observers = _observers(seats, round.players)
    _start_hooks(seats, round.observation)
    while True:
        if observers:
            seen = _tell(round.events, observers, seen)
        if round.is_over:
            break
        seat = round.to_move
        observation = round.observation(seat)
        legal = tuple(observation.legal_moves)
        move = _decide(seat, seats[seat], observation, legal)
        if not legal or type(move) is not type(legal[0]) or move not in legal:
            _illegal(seat, move, legal)
        round.play(move)  # the engine's part: an error in it is not the bot's
        PyErr_CheckSignals()
    return _end_hooks(seats, round.result, round.observation)


cdef list _observers(tuple seats, int players):
    """The bots that keep an ``observe`` hook, by seat; ValueError for a wrong count."""
    _imports()
    if len(seats) != players:
        raise ValueError(f"play_round: {players} seats but {len(seats)} bots")
    return [(s, bot) for s, bot in enumerate(seats) if not _noop(bot, OBSERVE)]


cdef void _start_hooks(tuple seats, observe) except *:
    """Each bot's ``start_round`` with its seat's view (``observe(seat)``)."""
    cdef int seat
    for seat in range(len(seats)):
        if not _noop(seats[seat], START_ROUND):
            _hook(seat, seats[seat], START_ROUND, (observe(seat),))


cdef Py_ssize_t _tell(tuple events, list observers, Py_ssize_t seen) except -1:
    """The events after the first ``seen`` to every observer; the count told."""
    cdef Py_ssize_t n = len(events), i
    for i in range(seen, n):
        for s, bot in observers:
            _hook(s, bot, OBSERVE, (events[i],))
    return n


cdef inline object _decide(int seat, bot, observation, legal):
    """The bot's ``choose`` (through its Guard in a match)."""
    if type(bot) is Guard:
        return (<Guard>bot).choose_move(observation, legal)
    return _hook(seat, bot, CHOOSE, (observation, legal))


cdef void _illegal(int seat, move, legal) except *:
    raise _BotError(
        seat,
        f"choose() returned {describe(move)}, which is not legal; legal: "
        + ", ".join(map(str, legal)),
    )


cdef object _end_hooks(tuple seats, result, observe):
    """Each bot's ``end_round`` with the result and its final view; the result."""
    cdef int seat
    for seat in range(len(seats)):
        if not _noop(seats[seat], END_ROUND):
            _hook(seat, seats[seat], END_ROUND, (result, observe(seat)))
    return result


cdef object _play(Round round, bots):
    cdef tuple seats = tuple(bots)
    cdef int seat, i
    cdef Py_ssize_t seen
    cdef Move chosen
    cdef list observers = _observers(seats, round.rules.c.players)
    _start_hooks(seats, round.observation)
    seen = _deliver(round, observers, 0)
    while round.st.status == PLAYING:
        seat = round.st.to_move
        bot = seats[seat]
        observation = round._observation(seat)
        legal = (<SeatView>observation).legal_moves
        if type(bot) is Guard:
            move = (<Guard>bot).choose_move(observation, legal)
        else:
            try:
                move = bot.choose(observation, legal)
            except _BotError:
                raise
            except Exception as exc:
                name = getattr(bot, "name", "") or type(bot).__name__
                raise _BotError(
                    seat, f"{name}.choose() raised {type(exc).__name__}: {exc}"
                ) from exc
        if type(move) is not Move:  # exactly a Move: a subclass or a look-alike may lie
            raise _BotError(seat, f"choose() returned {describe(move)}, not a bones.Move")
        chosen = <Move>move
        i = find_move(round.st, chosen.code)
        if i < 0:
            raise _BotError(
                seat,
                f"choose() returned {chosen}, which is not legal; legal: "
                + ", ".join(map(str, legal)),
            )
        round._play_code(round.st.moves[i])  # the engine's: an error here is not the bot's
        if observers:
            seen = _deliver(round, observers, seen)
        PyErr_CheckSignals()
    return _end_hooks(seats, round.result, round.observation)


cdef object _play_trains(TrainRound round, bots):
    """:func:`play_round` for a train game's round: the same hooks in the same order, the
    round read and played through its C face (a decision costs no Python call of the
    engine's).  A bot's answer must be exactly a TrainMove and legal: a look-alike may
    lie."""
    cdef tuple seats = tuple(bots)
    cdef int seat
    cdef Py_ssize_t seen = 0
    cdef TrainSeatView observation, spare = None
    cdef type kind = None  # the class of the observations made
    round._check()
    cdef list observers = _observers(seats, round.st.players)
    _start_hooks(seats, round.observation)
    while True:
        if observers:
            seen = _tell(round._events(), observers, seen)
        if round.st.status != TR_PLAYING:
            break
        seat = round.st.to_move
        if spare is None:
            observation = round._observation(seat)
            kind = type(observation)
        else:  # the last decision's, which nobody kept: made anew without an allocation
            observation, spare = spare, None
            round._refill(observation, seat)
        legal = observation._legal  # the very tuple the observation holds
        move = _decide(seat, seats[seat], observation, legal)
        # only ours (the bot kept no reference to it) and still of its class (a bot that
        # assigned __class__ does not hand its class on to the next decision)
        if Py_REFCNT(observation) == 1 and type(observation) is kind:
            spare = observation
        # the engine's part (an error in it is not the bot's) once the move is its type
        if type(move) is not TrainMove or not round._play_legal((<TrainMove>move).code):
            _illegal(seat, move, legal)
        PyErr_CheckSignals()
    return _end_hooks(seats, round.result, round.observation)
