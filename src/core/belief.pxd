# How likely a full deal makes the public record: the other seats' placements, each chosen
# by a softmax of the expert's move values.  pimc's ``infer`` weights its samples by it.
from bones.core.policy cimport Weights
from bones.core.state cimport State


cdef double log_likelihood(const State* s, State* scratch, int seat, double beta,
                           const Weights* w) noexcept nogil
