// Package bidding implements the resource granting system of Reif and
// Spirakis, "Probabilistic bidding gives optimal distributed resource
// allocation" (ICALP 1984): uniform probabilistic bidding (§3, Algorithm,
// name "bidding") and priority bidding (§4, Priority, name
// "priority-bidding").
//
// # The system
//
// Users 0..Users-1 are the application processes. Each resource j has its
// own granting process, id Users+j. A user talks only to the granters of the
// resources it currently wants; a granter talks only to the users that bid
// for it. Requests are dynamic: every request may name any set of
// resources.
//
//	user i (round of c steps)                 granter j (rounds of varying length)
//	─────────────────────────                 ──────────────────────────────────
//	draw x in {1..βkv}
//	x < βkv: idle till round end
//	x = βkv: winner ── Win(r,a) ──────────▶ gather one step (M_j ∈ {0,1,≥2})
//	         (to all k granters at once)      M_j ≥ 2: ── Deny ──▶ every bidder
//	         collect the k answers    ◀────── M_j = 1: ── Agree ─▶ the winner
//	         all k Agree(r,a)?                (offered: reserved for it)
//	           yes: Accept ─────────────────▶ allocated until Release
//	                enter, use, Release ────▶ free
//	           no:  Decline to the agreeing ─▶ free
//	                after λ1 steps, the next attempt (new a) if it still
//	                fits in the round
//
// # Constants (§3.2)
//
// With ρ = r_max/r_min, μ the critical-section length in steps, k the largest
// request and v the most users competing for one resource:
//
//	β  = 1 + ρ                     a draw wins with probability 1/⌈βkv⌉
//	λ1 = ⌈2ρ⌉ + 1                  steps a winner collects answers
//	λ2 = μ                         steps of a granter's monitoring period
//	c  = ⌈(2(λ1+μ)+1)·ρ²⌉          steps of a user's round
//	c1 = ⌈c·ρ⌉                     priority bidding: bound of the random wait
//
// A step is Step ticks of the process's local time (the driver scales local
// timers by the process's speed). The bounds of the paper assume, in this
// message-passing rendering, that a message arrives within one step of the
// fastest process, as a flag write is seen by its reader within a step.
//
// Parameters come from the Problem: k is the largest MaxSets entry (or
// Problem.MaxDemand when that is smaller) and v the most users whose MaxSets
// share a resource, unless Problem.Options set them ("k", "v"); "ratio" (ρ,
// default 1), "mu" (μ, default 1), "step" (ticks, default 10: about a
// message delay and a critical section of the default scenario) and
// "constants" (paper or allot, below) are options too. Unknown options are an error. A step shorter than the message delays
// only makes the algorithm slower: attempts close on their answers, not on
// a clock (see below).
//
// # Priority bidding (§4)
//
// A user whose current request has k_i resources belongs to group m, the
// largest m in 0..⌈log₂ k⌉ with k_i ≤ ⌈k/2^m⌉ (the paper's groups
// [⌊k/2^{m+1}⌋, ⌈k/2^m⌉] overlap at their ends; the largest m is the group
// that favours the user). Its rounds start with a random wait uniform in
// {0..c1−1} steps, after which the round is uniform bidding with draws from
// {1..⌈β·h_m·v⌉}, h_m = ⌈k/2^m⌉. A granter's time is split into intervals,
// one group at a time; inside interval m it runs uniform small rounds among
// the winners of group m and denies every other group.
//
// # Readings and deviations
//
//   - Flags become messages. W_ij ← 1 is Win, E_ji ← 1 is Agree, E_ji ← 0
//     for a bidder is Deny, A_ij ← 1 is Accept, A_ij ← 0 is Decline and
//     N_ij ← 1 is Release. Each carries the user's round and attempt number
//     (r, a), so that an answer from an earlier period is never taken for an
//     answer in the current one: "every granter agreed in the same period"
//     is "every granter sent Agree(r, a) for the current (r, a)".
//   - The k parallel subprocesses of a user are one message to each of its k
//     granters, sent at once; the v monitoring subprocesses of a granter are
//     its gather window of one step, during which every Win that arrives is
//     counted. M_j is a three-valued counter (none, one, more than one). The
//     paper sums writes modulo 3 with a constant-depth tree; read literally,
//     four simultaneous winners would sum to 1 and look unique, so the
//     counter saturates instead, which is what the test "M_j = 1" is for.
//   - The granter is the safety mechanism. Once it has sent Agree(r, a) to a
//     user it is reserved for that user until the user's Accept or Decline
//     for (r, a) arrives, with no timeout; after Accept it is allocated until
//     Release. The paper's granter instead gives up after λ1 steps if A_ij is
//     still 0: with message delays and untame speeds that timeout could free
//     the resource while the user's Accept is in flight. A user answers
//     every Agree exactly once (Accept, or Decline — at once if the Agree is
//     stale), so a reserved granter is always freed. Exclusion therefore
//     holds at any speeds and delays; only the response bounds need
//     tameness.
//   - An attempt is decided on its answers, not on a deadline: every Win is
//     answered exactly once (Agree or Deny), so the user accepts as soon as
//     all k granters have agreed, declines on the first Deny, and closes the
//     attempt when the last answer is in. The λ1-step window only paces the
//     attempts: the next one starts when the window is over and the previous
//     one is closed. Waiting for the answers (the paper reads E_ji after
//     exactly λ1 steps) keeps the algorithm live when messages take longer
//     than a step — then it is merely slower — and frees reserved granters
//     sooner. For the same reason a round whose end comes during an open
//     attempt ends when the attempt closes, and an attempt whose Agrees all
//     arrive accepts even if that is after step c−μ.
//   - The critical section's length is the application's: the user enters,
//     and releases when the driver calls Release. μ is the length the rounds
//     are sized for. A user starts an attempt only if its window fits before
//     step c−μ of its round (the listing's "counter < c−μ" test).
//   - A user with no request does not run rounds; a request starts a round
//     at once, or when the round still running (after a served request) ends
//     — so draws of one user are always at least one round apart, which is
//     what Lemma 1 needs.
//   - λ1 gets one step more than the paper's 2ρ: a message exchange is two
//     delays of at most a step plus the granter's gather step of at most ρ
//     user steps. c is the paper's (2(2+μ)+1)ρ² with the paper's 2-step
//     exchange replaced by λ1. The option constants=paper sizes both as
//     §3.2 does (λ1 = ⌈2ρ⌉, c = ⌈(2(2+μ)+1)ρ²⌉); `allot repro bidding`
//     measures that the rounds a request takes are the same either way
//     (claim bidding/constants-paper): an attempt closes on its answers,
//     not on the λ1 window, so the window only paces the attempts.
//   - The granter's monitoring period λ2 has no work to do when no Win has
//     arrived (the flags are messages, so an idle granter waits for one),
//     and ends after the one-step gather once one has.
//   - Priority bidding (§4.2b) moves a granter on from interval m "only if
//     all users of group m have been allocated". Read literally, two
//     granters each waiting for a user that needs the other deadlock. Here a
//     granter's interval m lasts while a winner of group m that it knew of
//     when the interval began is still bidding (its Win refreshed within a
//     lease of (λ1+2)·ρ steps and not yet served); winners stop bidding when
//     their round ends, so every interval ends. Intervals without winners
//     are skipped; the next interval is the next group, cyclically, with a
//     live winner. The paper lists ⌈log k⌉ intervals but indexes them
//     m = 0..⌈log k⌉; there are ⌈log₂ k⌉+1 groups here. A winner of a group
//     the granter is not monitoring gets a Deny at once (the paper leaves
//     it unanswered, which its user reads the same way at the end of its
//     window).
package bidding
