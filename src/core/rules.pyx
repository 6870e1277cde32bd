"""Compile a variant and its options into the C ``Rules`` struct, once per option set."""

from bones.errors import OptionError

_FAMILIES = {
    "straight": FAMILY_STRAIGHT,
    "multiplayer": FAMILY_MULTIPLAYER,
    "kozel": FAMILY_KOZEL,
    "block": FAMILY_BLOCK,
    "draw": FAMILY_DRAW,
}
_DOUBLE_ORDERS = {
    "highest_double": (6, 5, 4, 3, 2, 1, 0),
    "one_one_first": (1, 2, 3, 4, 5, 6, 0),
    "lowest_double_first": (0, 1, 2, 3, 4, 5, 6),
}
_SPINNERS = {"none": SPINNER_NONE, "first_double": SPINNER_FIRST_DOUBLE,
             "all_doubles": SPINNER_ALL_DOUBLES}


class OtherCore(OptionError):
    """The variant runs on another core than the double-six one (the train games:
    ``bones.core.trains``); ``variant`` is its :class:`~bones.Variant`.  ``Round.deal``,
    ``Round.from_deal`` and ``Round.from_msgpack`` hand such a variant to that core; any
    other double-six-only function reports it as this OptionError.  ``api`` names that
    function (``"ActionSpace"``, ``"VectorEnv"``): the message then says it does not
    support the train games yet."""

    def __init__(self, variant, api=None):
        if api is None:
            text = ("this needs a double-six variant; bones.Round.deal, Round.from_deal and "
                    "Round.from_msgpack play every family's rounds")
        else:
            text = (f"{api} does not support the train games (Mexican Train, Chicken Foot) "
                    "yet: it takes the double-six variants (block, draw, straight, "
                    "fives-and-threes, ...); a train game is played with bones.Round.deal "
                    "or bones.Game (docs/trains.md)")
            if api == "ActionSpace":
                text += "; its action space is bones.train_actions.TrainActionSpace"
            elif api == "bones.envs.openspiel":
                text += ("; VectorEnv and bones.envs.pettingzoo play them (this adapter's "
                         "chance deal, resampling and state strings are the double-six "
                         "Round's)")
        super().__init__(
            f"{variant.name}: the {variant.base} family is played on the train games' core "
            f"(bones.core.trains); {text}"
        )
        self.variant = variant
        self.api = api


cdef object _NEW = object()  # the token that lets compile_rules construct CompiledRules
cdef dict _cache = {}     # (variant, players, frozen overrides) -> CompiledRules
cdef dict _defaults = {}  # variant -> [CompiledRules of the default options, by players]


cdef class CompiledRules:
    """A variant and its options compiled into the ``Rules`` struct; made only by
    ``compile_rules`` (cached per option set)."""

    def __cinit__(self, *args):
        if len(args) != 1 or args[0] is not _NEW:
            raise TypeError("use bones.core.rules.compile_rules(variant, players, options)")

    @property
    def opening_rule(self):
        """Whether a round dealt without a leader opens by the doubles rule (the holder of
        the first double of the order leads)."""
        return self.c.opening == OPEN_DOUBLES


def clear_cache():
    """Forget every compiled option set (after the variant registry changed)."""
    _cache.clear()
    _defaults.clear()


cdef object _freeze(object value):
    """A hashable stand-in for an option value, types included (so {2: 7.0} != {2: 7})."""
    if isinstance(value, dict):
        return frozenset([(type(k), k, type(v), _freeze(v)) for k, v in value.items()])
    return value


cpdef CompiledRules compile_rules(str variant, int players, dict options):
    """The compiled rules of ``variant`` for ``players`` with ``options`` (cached)."""
    cdef list by_players
    if not options and 0 <= players < 5:
        by_players = _defaults.get(variant)
        if by_players is not None and by_players[players] is not None:
            return <CompiledRules>by_players[players]
    try:
        # the type is part of the key: True == 1 and 7.0 == 7 must not share a compilation
        key = (variant, players,
               tuple(sorted([(k, type(v), _freeze(v)) for k, v in options.items()])))
        cached = _cache.get(key)
    except TypeError:  # an unhashable or unorderable value: resolve() below names it
        key = None
        cached = None
    if cached is not None:
        return <CompiledRules>cached
    from bones.registry import variant as lookup

    spec = lookup(variant)
    if spec.base not in _FAMILIES:
        raise OtherCore(spec)
    resolved = spec.resolve(players, **options)
    cdef CompiledRules out = CompiledRules.__new__(CompiledRules, _NEW)
    out.variant = spec
    out.name = spec.name
    out.options = resolved
    out.key = key
    out.overrides = dict(options)
    out.move_scorer = getattr(spec, "move_scorer", None)
    _fill(&out.c, spec.base, players, resolved, out.move_scorer is not None)
    sides = [[] for _ in range(out.c.n_sides)]
    for seat in range(players):
        sides[out.c.side_of[seat]].append(seat)
    out.sides = tuple([tuple(side) for side in sides])
    if key is not None:
        _cache[key] = out
    if not options and 0 <= players < 5:
        _defaults.setdefault(variant, [None] * 5)[players] = out
    return out


cdef void _fill(Rules* r, str base, int players, dict o, bint python_scorer) except *:
    if base not in _FAMILIES:
        raise OptionError(f"unknown rule family {base!r}; known: {', '.join(_FAMILIES)}")
    r.family = _FAMILIES[base]
    r.players = players
    r.hand_size = o["hand_size"]
    if players * r.hand_size > 28:
        raise OptionError(f"{players} players x {r.hand_size} tiles is more than 28 tiles")
    teams = players == 4 and o.get("teams_with_4", base in ("straight", "block", "kozel", "draw"))
    r.n_sides = 2 if teams else players
    for seat in range(4):
        r.side_of[seat] = (seat % 2) if teams else seat
    r.spinner = _SPINNERS[o.get("spinner_rule", "none")]
    r.sides_first = o.get("spinner_sides_first", True)
    r.count_scoring = COUNT_FIVES if r.family == FAMILY_STRAIGHT and not python_scorer \
        else COUNT_NONE
    r.python_scorer = python_scorer
    straight = r.family == FAMILY_STRAIGHT
    r.threes = straight and o.get("count_rule", "fives") == "fives_and_threes"
    r.out_point = straight and o.get("hand_award", "pips") == "one_point"
    r.both_out = straight and r.n_sides < players \
        and o.get("partnership_out", "first_partner") == "both_partners"
    if r.count_scoring and (r.threes or r.out_point):
        r.count_scoring = COUNT_GENERAL  # apply_move's All Fives branch stays as it was
    if r.threes and o.get("score_scale", 1) != 1:
        raise OptionError("count_rule 'fives_and_threes' scores points, not pips: "
                          "score_scale must be 1")
    r.muggins = r.count_scoring and o.get("muggins_claim", False)
    r.merge_equal_ends = r.family != FAMILY_STRAIGHT
    r.draws = r.family != FAMILY_BLOCK
    if r.family == FAMILY_STRAIGHT:
        if o["boneyard_reserve"] == "all":  # Fives and Threes: the boneyard is out of play
            r.draws = 0
            r.reserve = 0
        else:
            r.reserve = o["boneyard_reserve"]
    elif r.family in (FAMILY_MULTIPLAYER, FAMILY_DRAW):
        r.reserve = o["stock_reserve"]
    else:
        r.reserve = 0
    r.draw_with_playable = o.get("may_draw_with_playable", False)
    r.voluntary_pass = o.get("voluntary_pass", False)
    r.double_double = r.family == FAMILY_KOZEL and o.get("double_double", True)
    r.structural_fish = o.get("structural_fish_early", False)
    r.lone_zero = o.get("lone_zero_double", 25) if r.family == FAMILY_KOZEL else 0
    r.blocked_difference = o.get("blocked_award", "opponents_total") == "difference"
    r.partner_subtract = o.get("partner_pips_on_domino", "ignore") == "subtract"
    r.tie_lightest_tile = o.get("blocked_tie", "lightest_tile") == "lightest_tile"
    r.stock_to_winner = o.get("stock_pips_to_winner", False)
    r.fish_blocker = o.get("fish_winner", "lowest_value") == "blocker"
    r.score_scale = o.get("score_scale", 1)
    # Only All Fives scores during a round, so only it can reach the target mid-round.
    r.target = o.get("target", 0) if r.family == FAMILY_STRAIGHT else 0
    r.target_immediate = o.get("target_check", "immediate") == "immediate"
    r.exact_target = o.get("exact_target", False)
    if r.family in (FAMILY_BLOCK, FAMILY_DRAW):
        r.opening = OPEN_GIVEN
    elif r.family == FAMILY_STRAIGHT:
        r.opening = OPEN_DOUBLES if o["first_leader"] == "highest_double" else OPEN_RANDOM
    else:
        r.opening = OPEN_DOUBLES
    order = _DOUBLE_ORDERS[o.get("opening_order", "highest_double")]
    if o.get("no_zero_double_lead", False):
        order = tuple(p for p in order if p != 0)
    r.n_double_order = len(order)
    for i, p in enumerate(order):
        r.double_order[i] = p
    ranking = o.get("nondouble_ranking", o.get("tile_ranking", "pip_sum"))
    r.rank_lexicographic = ranking == "lexicographic"
    r.opening_forced = o.get("opening_tile_forced", True)
    r.redeal_bad_hand = o.get("redeal_bad_hand", False)
    r.table.bounded = o.get("geometry", "unbounded") == "bounded"
    # a side of w tile lengths is 4 * w grid units, centred on the lead
    r.table.x0 = -2 * o.get("table_width", 2)
    r.table.x1 = 2 * o.get("table_width", 2)
    r.table.y0 = -2 * o.get("table_height", 2)
    r.table.y1 = 2 * o.get("table_height", 2)
    r.fast_line = r.merge_equal_ends and not r.table.bounded
    r.end_when_closed = r.table.bounded and o.get("end_when_closed", False)
    r.early_end = r.structural_fish or r.end_when_closed
