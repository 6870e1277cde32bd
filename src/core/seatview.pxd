# The fields of what one seat may know, as a compiled base class: Round.observation fills
# them with plain stores, and bones.Observation (Python) adds the methods.

cdef class SeatView:
    cdef public object seat          # the seat this view belongs to
    cdef public object side          # its side (team) index
    cdef public object variant       # the variant's registered name
    cdef public object options       # the options given to the round (a dict, a copy)
    cdef public object players       # seats at the table
    cdef public object hand          # this seat's tiles (tuple of Tile)
    cdef public object hand_sizes    # tiles held, per seat (tuple of int)
    cdef public object stock_size    # tiles left in the boneyard
    cdef public object ends          # live ends as (name, open number) pairs
    cdef public object layout        # placements on the table in play order (tuple of Move)
    cdef public object count         # the All Fives count of the layout
    cdef public object events        # the public log (tuple of Event)
    cdef public object scores        # per side: game score plus this round's points
    cdef public object to_move       # the seat to move, None once the round is over
    cdef public object legal_moves   # this seat's legal moves when it is to move, else ()
    cdef public object closed_ends   # the ends the bounded table has closed (names)
    cdef public object opening       # the opening rule chose the leader (None: unknown)
