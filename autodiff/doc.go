// Package autodiff differentiates terms of the graph IR in reverse mode.
//
// # API
//
// Grad(loss, wrt) takes a closed, well-typed term whose result is an f32
// or f64 scalar, and the inputs to differentiate against, and returns ONE
// ordinary term computing the tuple
//
//	(loss, d loss/d wrt[0], ..., d loss/d wrt[n-1])
//
// Each gradient has its input's element type and extents (row-major, or a
// view of a row-major array such as the flip of one). The term passes
// graph.Check, graph.Eval evaluates it, and since forward and backward are
// one term, the fusion pass fuses them together and every back end runs
// the result. It reads every input the loss reads, so the bindings that
// evaluate the loss evaluate the gradient term too.
//
// GradAux(loss, wrt, aux...) appends auxiliary results, computed as they
// are and not differentiated: (loss, grads..., aux...). They are
// normalised with the loss, so what they share with it stays shared
// (models' training step returns BatchNorm's running statistics this
// way, reading the layer input the forward pass computes).
//
// # How
//
// The loss is first normalised (normalize.go): lets are inlined into a DAG
// (a let-bound value becomes one node with several users), applications
// are reduced (beta; an op, section, id or partial nzip applied becomes
// the call or nzip it means), the function of every nzip and rnz becomes a
// lambda (eta), and a lambda used by several traversals is copied for each,
// so that graph.Check types each copy by its own arrays. Then the backward pass walks the term from the
// loss, parents before children, accumulating for every node the sum of
// the cotangents its users hand it (so a value used several times, let
// -bound or shared, gets the sum of its uses' cotangents). The body of
// each lambda is a level of its own: its nodes are those that read the
// lambda's parameters; what it reads from outside (an input, a weight, a
// value computed outside, a parameter of an enclosing lambda) are its
// escapes.
//
// Primal values the backward pass needs are shared, not copied: the
// gradient term refers to the loss's nodes. A value under a lambda is
// computed again by the backward function that needs it (there is no tape),
// except the result of an nzip, which the backward function reads from the
// nzip's result array. Finally, values read twice, or from a nested lambda,
// are bound by a let at the top of the lambda body that computes them, so
// nothing is computed once per element of a nested traversal (share.go).
// Backward functions bind fresh variables, so no binder of the gradient
// term is bound again inside itself.
//
// # Rules
//
// Each rule is documented next to its code.
//
//   - Scalar ops (rules.go): every op of graph's op table has a rule. add,
//     sub, mul, div, neg, pow, exp, log, sqrt, rsqrt, tanh, logistic and erf
//     have their usual derivatives (pow's derivative in the exponent is 0
//     where the base is 0, as in JAX); abs has sign(a), with sign(0) = 0;
//     max and min pass the cotangent to the operand they chose and split
//     it equally on a tie (max x x has derivative 1); select passes it to
//     the chosen operand and none to the condition; f32 and f64
//     conversions convert it back to the operand's type. Comparisons, and,
//     or, not and i32 conversions have bool or i32 results, and nothing
//     flows through bool or i32 values: their derivative is zero.
//   - nzip f xs (grad.go): the cotangent of the result is an array of
//     per-element cotangents; the backward pass of f's body gives the
//     cotangent of each parameter per element, and these stack into
//     nzip (\ps c -> dp) xs ct, the cotangent of each array. A value f
//     captures from outside gets per-element cotangents that are summed
//     over the traversed axis by rnz (+). Nested nzips and rnzs (a matrix
//     product map (\r -> map (\c -> rnz (+) (*) r c) (flip 0 W)) X) are
//     levels inside levels.
//   - rnz r f xs (reduce.go): with r = (+) every element gets the result's
//     cotangent (a broadcast); with max or min the cotangent goes to the
//     elements equal to the result, split equally among ties, as JAX does
//     for reduce_max and reduce_min; with (*) each element gets the product
//     of the others, computed from the count of zero factors and the
//     product of the nonzero ones without dividing by zero. The operators
//     may be lifted to arrays (zip (+), lift (zip max)) and componentwise on
//     tuples. Any other reduction operator is refused with an error naming
//     the term.
//   - subdiv, flatten, flip (view.go): the cotangent of a view is the
//     inverse view of the cotangent: flatten for subdiv, subdiv for
//     flatten, the same flip for flip. Where the cotangent's layout cannot
//     be flattened (it went through a flip) it is first copied row-major.
//   - window, pad, crop (view.go): a window shows elements at several
//     places, so its cotangent is an overlapping scatter-add (col2im),
//     written as views and sums: column k of the cotangent, padded to
//     land at k*dilation with stride-1 zeros between its elements, summed
//     over the window's elements. A pad's cotangent is the crop of the
//     padded range (every (n+1)-th element with interior padding n), a
//     crop's the zero pad. Max pooling needs nothing more: reduce max
//     routes each window's cotangent to its arg-max, ties split equally,
//     and the scatter-add sums what overlapping windows route to one
//     element. (JAX's reduce_window max gives a tie wholly to one element;
//     the two agree wherever the maximum is unique.)
//   - Tuples hand each element its part of the cotangent, and a projection
//     hands its cotangent to one element of the tuple; zeros are made (as
//     maps over the primal value) only where a whole tuple is needed.
//
// # Refused
//
// Grad returns an error, naming the term, op or input, for: a loss that is
// not an f32 or f64 scalar; an input to differentiate against whose type
// is not an f32 or f64 scalar or array (i32, bool and tuple inputs), named
// twice, or not the input of that name the loss reads; no inputs at all; an
// op without a derivative rule; and a reduction by anything but (+), max,
// min and (*).
//
// # Limits
//
// The derivative of max, min, abs and select at a tie or switch is a
// subgradient (the one described above); finite differences there are
// meaningless, and the gradient law test skips such points. The
// exclusive product of a (*) reduction is computed from the product of the
// nonzero factors, which can overflow or underflow where the exclusive
// products would not. Values under a lambda other than an nzip's result are
// recomputed by the backward functions that need them (a ReLU's
// pre-activation, for one); keeping them instead is a choice for a later
// checkpointing policy.
package autodiff
