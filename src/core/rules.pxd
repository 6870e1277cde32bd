# A variant's options compiled once into a plain C struct that the hot loops read.
from libc.stdint cimport int16_t, int32_t, uint8_t

from bones.core.geometry cimport Table

cdef enum Family:
    FAMILY_STRAIGHT = 0
    FAMILY_MULTIPLAYER = 1
    FAMILY_KOZEL = 2
    FAMILY_BLOCK = 3
    FAMILY_DRAW = 4

cdef enum Spinner:
    SPINNER_NONE = 0
    SPINNER_FIRST_DOUBLE = 1
    SPINNER_ALL_DOUBLES = 2

cdef enum CountScoring:
    COUNT_NONE = 0               # no per-move score (or a Python move_scorer)
    COUNT_FIVES = 1              # All Fives: a multiple of five scores itself
    COUNT_GENERAL = 2            # count_rule or hand_award not All Fives': score_count

cdef enum Opening:
    OPEN_GIVEN = 0               # seat 0 (or the given leader) leads any tile
    OPEN_RANDOM = 1              # a seat drawn from the round's RNG leads any tile
    OPEN_DOUBLES = 2             # the best double by `double_order`, else the heaviest tile

ctypedef struct Rules:
    uint8_t family               # Family
    uint8_t players              # 2..4
    uint8_t hand_size            # tiles dealt to each seat
    uint8_t n_sides              # players, or 2 with partnerships
    uint8_t side_of[4]           # seat -> side
    uint8_t spinner              # Spinner
    uint8_t sides_first          # spinner arms open only once both sides are covered
    uint8_t count_scoring        # CountScoring: score the layout count after every placement
    uint8_t merge_equal_ends     # ends with equal numbers give one move (no per-move score)
    uint8_t draws                # a boneyard exists and is drawn from
    uint8_t reserve              # boneyard tiles that may never be drawn
    uint8_t draw_with_playable   # drawing is a choice even while holding a playable tile
    uint8_t voluntary_pass       # with nothing playable, passing is a choice beside drawing
    uint8_t double_double        # Kozel: two doubles on the two different ends in one turn
    uint8_t structural_fish      # end the round once no unplayed tile can ever match an end
    uint8_t lone_zero            # Kozel value of a hand that is exactly 0-0 (0: plain pips)
    uint8_t blocked_difference   # blocked award = difference instead of opponents' total
    uint8_t partner_subtract     # All Fives domino bonus less the partner's pips
    uint8_t tie_lightest_tile    # Multiplayer blocked tie: lightest single tile wins
    uint8_t stock_to_winner      # Multiplayer: stock pips go to the winner too
    uint8_t fish_blocker         # Kozel: the fish maker wins the fish regardless of pips
    uint8_t score_scale          # 1, or 5 to count in fives
    uint8_t target_immediate     # the target ends the game as soon as a count reaches it
    uint8_t exact_target         # a count that overshoots the target is void
    int32_t target               # game target checked during the round (0: none)
    uint8_t opening              # Opening
    uint8_t double_order[7]      # doubles' numbers in the order they open
    uint8_t n_double_order       # how many of double_order are eligible
    uint8_t rank_lexicographic   # non-doubles ranked 6-5 > 6-4 > ... instead of by pip sum
    uint8_t opening_forced       # the opener must lead the tile that made it the opener
    uint8_t redeal_bad_hand      # Kozel: >= 5 doubles or >= 6 of one number is redealt
    uint8_t python_scorer        # a Python move_scorer replaces count scoring
    uint8_t muggins              # counts score only when claimed; opponents may claim misses
    uint8_t fast_line            # two ends that never close: gen_moves' line fast path
    Table table                  # the table's edges; table.bounded: blocked ends close
    uint8_t end_when_closed      # bounded: the round ends once every end is closed (B2)
    uint8_t early_end            # structural_fish or end_when_closed: finish_move checks
    int (*scorer)(const void* state, int count) noexcept nogil  # a PythonScorer's call, or NULL
    void* scorer_ctx             # the PythonScorer that scorer reads (borrowed; it owns this copy)
    # Fives and Threes (after the All Fives fields, whose offsets the hot loops know)
    uint8_t threes               # count_rule fives_and_threes: count/5 and count/3 both score
    uint8_t out_point            # hand_award one_point: going out scores 1 with the last tile
    uint8_t both_out             # partnership_out both_partners: a side is out once all are


cdef class CompiledRules:
    cdef Rules c                 # the struct the core reads
    cdef readonly object variant    # the Variant it was compiled from
    cdef readonly str name          # its registered name (read for every observation)
    cdef readonly dict options      # every option, resolved, plus "players"
    cdef readonly tuple key         # (variant name, players, frozen overrides): the cache key
    cdef readonly dict overrides    # the options as the caller gave them
    cdef readonly object move_scorer  # the variant's Python scorer, or None
    cdef readonly tuple sides       # seats of each side


cpdef CompiledRules compile_rules(str variant, int players, dict options)
