from typing import Any

class SeatView:
    seat: Any
    side: Any
    variant: Any
    options: Any
    players: Any
    hand: Any
    hand_sizes: Any
    stock_size: Any
    ends: Any
    layout: Any
    count: Any
    events: Any
    scores: Any
    to_move: Any
    legal_moves: Any
    closed_ends: Any
    opening: Any
