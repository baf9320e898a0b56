// Package fusion turns a term of the graph IR into a graph of kernels: it
// rewrites the term with the paper's rules (vertical fusion through ncomp,
// horizontal fusion into products, exchanges of nested higher-order
// functions, subdivision) and cuts the result into kernels, each a maximal
// fused nest with named input buffers and one, possibly tuple, output.
//
// Partition is the cutting step on its own; Unfused uses it to split a term
// one layer at a time, the baseline that fused graphs are measured against,
// and Whole makes one kernel of everything. Unfused then schedules each
// kernel with the contract pass below, as Fuse does: that reorders the
// loops of a contraction inside its kernel (so a layer-by-layer run calls
// a matrix product for a dense layer's gradients, as a library would) and
// is scheduling, not fusion — no two kernels become one. A Graph runs on the reference
// interpreter with Eval, so that every split and every rewrite can be tested
// against the term it came from.
//
// # Rules
//
// A Rule is one law: its doc comment states the equation and its side
// conditions, and its Rewrite matches, checks the guard (returning a
// *Refusal that says why it does not apply) and rewrites. Rules see the
// term through a Context: types, use counts, closedness. The rules rewrite
// with graph.Rewriter, the one rewriter of the module.
//
// # The pipeline
//
// Fuse runs a fixed list of passes; each runs an engine that applies its
// rules until none applies (a normal form), and Options.Dump prints the
// term after each. Before every pass common subterms are shared (see
// below), so that the rules count the consumers of a computation, not of
// one of its copies. In order:
//
//  1. normalise: beta, inline-let, split-let, float-let, eta, flip-flip,
//     flip-nzip, window-flip, flatten-map.
//     It applies lambdas, inlines what is cheap to inline, floats lets out
//     of the arrays higher-order functions traverse, puts reduction
//     operators in η-normal form ((+), zip (+)), shortens flip chains
//     (moving a flip into an elementwise map where it meets, and cancels,
//     the flips of a channels-first layer below) and merges a map of maps
//     flattened back into one map (the views a broadcast over a kept axis
//     of extent 1 leaves), so that the fusion rules meet producers and
//     consumers side by side and recognise operators by shape.
//  2. vertical: nzip-nzip and rnz-nzip, with the housekeeping rules of
//     normalise (less flip-flip), which reduce the applications ncomp
//     builds, and same-arg, which merges the arguments of a traversal
//     that are one node (composing a row's sum into the quotient that
//     reads the row leaves zip f e e behind), so that their producer
//     counts one consumer. Vertical fusion runs before horizontal because fusing
//     pipelines decides which traversals remain to be put side by side.
//  3. contract: dead-arg, drop-copy, eta, flip-flip and contract. It drops
//     the arguments a function never reads (reverse mode leaves the
//     weight's columns and the bias traversed for their extent) and the
//     copies they leave, then brings every contraction — a sum of products
//     over an axis, in any nesting order, such as the weight gradient
//     Xᵀ·dY, an rnz of outer products over the batch — into the matrix
//     product's normal form, maps over the result's axes around one scalar
//     dot product, which the back ends run as a GEMM (see Contract for the
//     criterion). It runs twice: before vertical fusion, so that a
//     contraction a consumer would absorb (a dense layer's input gradient
//     dY·Wᵀ, read by the ReLU's gradient) is already a matrix product,
//     which vertical fusion keeps whole and gives the consumer as its
//     epilogue, rather than a sum of scaled rows inside each row of the
//     consumer; and after it, for the contractions vertical fusion
//     exposes. Both runs come before horizontal fusion, which would put a
//     weight gradient side by side with its bias gradient (both traverse
//     X and dY) and hide the contraction.
//  4. horizontal: first, closed lets become shared nodes and sibling
//     traversals merge (mergeSiblings: closed reductions anywhere in the
//     term that traverse a common array, and closed maps of vectors of one
//     extent, neither reading the other's result, become one traversal
//     with a tuple result, as product does for the elements of one tuple;
//     a dense layer's bias gradient and BatchNorm's backward sums are then
//     one traversal each, and so are the updates of the vector
//     parameters; a weight gradient, in GEMM form after contract, is a map
//     of rank 2 and is not merged); then product and fan-out, with beta,
//     inline-let and eta (η for products included), which reduce the
//     functions product builds.
//  5. kernels: lets whose values are closed become shared nodes (a DAG),
//     and Partition cuts the term into kernels (see the policy below). A
//     view of a kernel's result (flip 0 of a computed matrix, the operand
//     of a weight gradient) is read in place by the kernels that use it,
//     like a view of an input, not copied by a kernel of its own.
//  6. schedule: each kernel's loops are put in the order a cost model of
//     the memory hierarchy predicts fastest (ScheduleGraph; see "The
//     schedule pass" below). It never moves work between kernels.
//
// # Common subterms
//
// shareCommon makes α-equivalent value subterms of the same type and with
// the same free variables one node: C[e, e'] = C[e, e] in a pure language,
// since a term's value depends on its free variables alone, and variables
// are bound by identity. The gradient term refers to forward values
// through copies (a dense layer's output once for BatchNorm's mean, once
// for its variance, once per use in the backward pass); shared, a matrix
// product has several consumers, the producer guard refuses to recompute
// it, and kernel formation materialises it once. It is one walk of the
// term, children first, hashing each node once with a hash blind to the
// names of bound variables, and comparing nodes of equal hash for
// α-equivalence; function terms are compared inside the values that hold
// them but not shared on their own (a function has no type of its own).
//
// Inside the reduction operator of an rnz only beta, inline-let and eta
// run: the operator keeps a shape the back ends lower as a reduction body
// (an op, a lifted op, one op per tuple component). Product there would
// merge a tuple operator's components into one nzip returning a tuple,
// which no back end takes as a reduction body.
//
// RuleNames lists the rules the pipeline runs, the names Options.Disable
// and the command line's --disable-rule accept. The exchange rules
// (map-map, map-rnz, rnz-map, rnz-rnz), hoist-view and the subdivision
// rules (subdiv-map, subdiv-rnz, and window-subdiv, which tiles the
// positions of a window into windows over tiles of its operand with a
// halo) are in Rules but not in RuleNames: they are not normalising
// (map-map is its own inverse), so no engine runs them to a normal form;
// the schedule search applies them one at a time.
// contract applies rnz-map and map-map too, but only in one direction,
// toward the matrix product's normal form, which makes them normalising.
//
// # The multi-consumer policy
//
// A value several terms use is either recomputed by each (fused into each
// consumer) or computed once and materialised; recomputation is chosen only
// when it costs no more than the memory traffic it saves:
//
//   - inline-let inlines a let-bound value used more than once, or inside a
//     lambda, only when it is a function, trivial (a variable, input,
//     literal, or a view of one), or a cheap map: an nzip over trivial
//     arrays whose function performs at most 4 scalar operations and no
//     higher-order function. Otherwise the let stays, and the report says
//     why.
//   - split-let handles a cheap map over costly arrays: the arrays are
//     named (computed once) and the map is inlined into its uses.
//   - nzip-nzip and rnz-nzip look at the producers among a consumer's
//     arguments in order and fuse the first the policy allows: a refused
//     one (a shared matrix product) does not hide a fusable one after it.
//   - nzip-nzip and rnz-nzip fuse a producer with several consumers only
//     when its function is short scalar code whose recomputation (extra
//     operations × extent) costs no more than writing and reading the
//     materialised array; and fuse a producer of arrays into a consumer
//     that reads each element inside an inner lambda only when the
//     producer is cheap (trivial arrays, at most 2 arithmetic operations,
//     no reduction). A consumer that reads each element more than once,
//     but each time whole, as an argument of its own traversals (a
//     softmax's sum and quotient of one row), takes any producer but a
//     matrix product: β binds the element with a let, computed once per
//     iteration into a buffer the size of one element (a row, in cache)
//     that the traversals reread.
//   - rnz-nzip never fuses a matrix product (a producer whose elements are
//     rows of reductions, a dense layer) into a reduction: there it would
//     run one dot product at a time; materialised, it runs as a GEMM. A
//     map consumer still takes it, as the GEMM's epilogue.
//   - these counts are of one computation, not of a copy: common subterms
//     are shared before every pass, and the rules make no copies (β
//     renames only the binders of the subterms that read the parameters
//     it substitutes, and keeps closed subterms shared), so a producer
//     whose elements cost a reduction (a matrix product) and that several
//     terms read is not fused into each of them, however the term
//     spelled it.
//   - kernel formation materialises, once, a closed computing term that
//     several terms use, that is the array argument of a higher-order
//     function (a producer fusion refused), or that lies inside a lambda
//     (a loop-invariant value, such as a batch statistic, finished before
//     the loop that reads it). A literal's value is never a kernel of its
//     own: its context decides its type. Nor is a view or a projection of
//     a computation: the computation is the kernel, and its readers read
//     the view of its buffer (a transposed weight gradient is no copy).
//
// # Termination
//
// Each pass terminates, and there are five of them. An engine stops when no
// rule applies; that it gets there is argued below with a measure that
// every rule of the pass strictly decreases, lexicographically. The
// measures do not depend on the guards (guards only forbid steps), so they
// also cover the engine's sweeps, in which several redexes are rewritten at
// once: each applied rewrite is an instance of its rule's equation. The
// engine still counts its steps, and past a limit it reports ErrRuleLoop
// naming the rules it applied last instead of running on.
//
// Two walks run between the engines, outside their descent. shareCommon,
// before every pass, is one walk of the term. mergeSiblings, before the
// horizontal engine, repeats one walk while a group of two or more sibling
// traversals remains, and each merge removes at least one nzip or rnz
// node, so it stops.
//
// Write U(t) for t with every let unfolded (let x = e in b read as
// b[x := e]), ops, sections, id and partial nzips read as the lambdas they
// stand for, and nzip, rnz, views and scalar calls as constants. U(t) is a
// term of the simply typed λ-calculus with products, and value types
// contain no function type (a lambda's parameters are values), so
// reduction from U(t) — β, η, β for products, fst (a, b) → a, and η for
// products, (fst p, snd p) → p — is strongly normalising (Tait) and, the
// calculus being typed, confluent: ν(t), the length of the longest such
// reduction from U(t), is finite, and U(t) has one normal form N(t).
//
// The normalise pass decreases, lexicographically,
//
//	( M(t),  ν(t),  Φ(t),  Λ(t),  D(t),  L(t),  |U(t)| )
//
// where M is the number of nzip nodes of N(t), Φ the multiset, over the
// flip nodes of U(t), of the number of nzip and rnz nodes below each
// (multiset order), Λ the multiset of the sizes |U(e)| of the values e of
// the lets of t, D the sum over lets of the number of array arguments of
// higher-order functions that enclose them, and L the number of lambdas.
// Every rule but flatten-map keeps N(t) or changes only its views, so M
// stays; the rules that keep U(t) (inline-let, split-let, float-let, and
// eta where it only names an op) keep Φ.
//
//   - beta: U(after) is a β-reduct of U(before), whether a parameter is
//     substituted or bound by a let, and for a projection of a tuple too:
//     ν decreases.
//   - inline-let: U is unchanged; one let of value size s goes, and the
//     lets inside its value are copied into its uses, each of size below
//     s: Λ decreases.
//   - split-let: U is unchanged; the let of the cheap map x (value size s)
//     goes, and the new lets bind its arguments, each of size below s;
//     lets in the map's function are copied into x's uses, each below s
//     too: Λ decreases. Naming the arrays and inlining the map are one
//     step on purpose. As two steps (name one array, keep the map's let)
//     the naming step added a let and removed none, and inline-let undid
//     it at once — the argument's name is used once, outside any lambda —
//     so the two rules looped (issue 8: a cheap zip of two maps used under
//     a lambda).
//   - float-let: U and the lets' values are unchanged; the let, and the
//     lets in its value, leave one array argument: D decreases.
//   - eta: an η-step of U (ν decreases; (fst p, snd p) => p is η for
//     products), or, for \a b -> a + b => (+),
//     \a b -> zip f a b => zip f and \x -> x => id, the same U with one
//     lambda fewer: ν, Λ and D stay, L decreases.
//   - flip-flip: flips are constants, so ν stays; the chain gets shorter,
//     each of its flips counting the same nodes below: Φ decreases.
//   - flip-nzip: ν stays; each copy in U(t) of the flip over the nzip z,
//     counting z and the nodes below it, becomes one flip per argument of
//     z, each counting only that argument's nodes, fewer: Φ decreases
//     (Λ may grow, the flip copied into each argument, but comes after).
//   - window-flip: a flip over a window becomes one window, the flip gone
//     and nothing else changed: Φ decreases. No rule puts a flip back over
//     a window (flip-flip only shortens chains, flip-nzip only moves flips
//     into an nzip's arguments).
//   - flatten-map: every copy of flatten 0 (nzip (\ps -> nzip g ps) xs)
//     in N(t) loses its outer nzip: M decreases. Where N(t) has erased the
//     redex (dead code), the rule removes a lambda's parameters and the
//     variables the inner nzip traversed, adds no redex, let or lambda,
//     and puts at most one flatten per argument for the flatten (and the
//     subdivs) it removes: M, ν, Φ, Λ, D and L do not grow, and |U(t)|
//     decreases.
//
// The vertical pass decreases ( V(t), ν(t), Λ(t), D(t), L(t) ), where V
// is the vector, indexed by depth, of the numbers of nzip and rnz nodes of
// N(t) at each depth of lambda nesting, compared shallowest depth first.
// The housekeeping rules are reduction steps of U, let unfoldings or let
// moves, all of which keep N(t) and so V; they decrease the rest as in normalise.
// nzip-nzip and rnz-nzip remove the producer, a node at some depth d, and
// put its function's body into the consumer's function, once in t (ncomp
// let-binds an element used more than once) and once per use in N(t), but
// always inside that function, at depths above d: V decreases at d and
// changes only deeper. (A fusion in dead code, which N(t) has erased,
// leaves V as it is; beta or inline-let erases that code, as they drop an
// unused parameter or let.)
//
// The horizontal pass decreases ( H(t), A(t), ν(t), Λ(t), L(t) ), where
// H is the number of nzip and rnz nodes of N(t) and A the sum of their
// numbers of array arguments. product replaces k ≥ 2 traversals by one,
// applying each function once: H decreases by k-1. fan-out merges
// repeated arguments of one traversal: H stays and A decreases. beta,
// inline-let and eta keep N(t), so H and A, and decrease the rest.
//
// The contract pass decreases ( R(t), S(t) ), where R is the sum, over
// the distinct rnz nodes of the term (a DAG), of the rank of each one's
// result, and S the number of distinct nodes. contract's rnz-map step
// replaces an rnz whose result has rank k ≥ 1 by a map around an rnz of
// rank k-1; the function's body moves into it once (substitution puts
// variables for variables), and the arrays it adds are the old rnz's
// arguments, shared, and views of them: R decreases by one. (The other
// rnz nodes of the nest are untouched; an argument a view's flip wraps is
// the same node, so nothing is counted twice.) contract's map-map step,
// under flip 0, exchanges two maps whose inner arrays do not depend on the
// outer element: the exchange builds as many parameters and arguments as
// it removes (at most; one for an unused outer element) and its own flip
// cancels the one above: R stays and S decreases. dead-arg removes a
// parameter and an argument, drop-copy a map id, eta a lambda and
// flip-flip flips: R does not grow and S decreases.
//
// Kernel formation is not a rewriting to a normal form but one walk of the
// term (letsToDAG, then Partition).
//
// # The schedule pass
//
// ScheduleGraph, the last pass of Fuse (ScheduleOptions.Off switches it
// off), orders each kernel's loops. A kernel's loops are a tree
// (NestTree): a loop's body may compute scalars around the next loop (a
// matrix product's epilogue) or run several loops (a LayerNorm's row: two
// reductions and a map). The exchange rules swap a loop with the one that
// is its body's whole value, so the tree is cut into straight chains, and
// each chain's permutations are enumerated in the Steinhaus–Johnson–
// Trotter sequence below, after no subdivision or one subdivision of a
// loop of a chain of two or more loops by each block of
// ScheduleOptions.Blocks. Chains along one path multiply: each order of an
// outer chain searches the chains inside it anew, since their strides
// depend on it. Chains in different branches add: HierCost sums a tree's
// paths from the top to each innermost loop, so a branch's order does not
// change what another's costs, and each branch is searched with its
// siblings as they are and then kept at its best — the paper's future
// work, enumeration over trees of nested HoFs, with a cut that makes the
// orders costed the sum over the branches rather than their product.
// The early cut keeps the enumeration small: orders that run the elements
// of a subdivided loop outside its blocks are the paper's orders with the
// halves swapped and are not costed; an exchange the rules refuse is
// remembered as a pair of loops, and every later order that needs that
// pair exchanged is cut without being built; an order in which the loops
// walk the same arrays with the same strides as an order costed before is
// cut as equivalent for the model. HierCost costs the rest (the
// machine's cache sizes come from sysfs, DetectMachine, with defaults);
// a matrix product in the contract rule's form costs its flops at the
// GEMM micro-kernel's rate, so the pass never trades that form for
// another order, and reaches it from other orders of a contraction. The
// written order is kept unless another is predicted cheaper by
// ScheduleOptions.Margin, and a kernel predicted under MinCost is not
// searched. With ScheduleOptions.Tune the best orders are timed instead
// and the choice kept on disk per kernel and machine (Tuner). The
// choice, its prediction and what was pruned are recorded on the kernel
// (Kernel.Schedule) and in the report, a tree written with its branches
// in parentheses: "mapX (mapX#2 mapX#3; rnz mapX#4)". The pass
// terminates: each chain has finitely many permutations, each visited once, and the
// number of orders costed per kernel is bounded (MaxOrders), and so is
// the number over the whole pass (ScheduleOptions.Budget), after which
// kernels keep the best order found so far and the report says so. Both
// bounds count orders, not time, so the choice never depends on the
// machine's speed or load.
//
// # The schedule search
//
// Search takes one kernel whose loops form a
// straight nest (each loop's function is the next loop) — a kernel Fuse
// made, or a term written by hand, as the paper's matrix product — and
// enumerates its loop orders. It first applies the requested subdivisions
// (subdiv-map, subdiv-rnz; once per level), then walks the permutations
// of the levels in the Steinhaus–Johnson–Trotter sequence, in which each
// order differs from the previous by one exchange of adjacent loops,
// realised by map-map, map-rnz, rnz-map or rnz-rnz (exchange.go). It
// terminates because it visits each of the finitely many permutations
// once, and each exchange is one rule application followed by one engine
// run of hoist-view, sink-view and flip-flip, which puts the views the
// exchange left between levels outside the nest. That engine terminates:
// the multiset of the lambda depths of the view nodes decreases (hoist-view
// and sink-view move a view from inside a lambda to the array it applies
// to, one depth out; flip-flip replaces a chain of flips by a shorter one
// at the same depth). Orders that repeat an earlier order's labels (the
// two halves of a subdivided loop) are dropped, and the orders come back
// as Schedules, for a cost model or a measurement to pick one; the paper's
// tables of matrix-product orders are two such searches.
package fusion
