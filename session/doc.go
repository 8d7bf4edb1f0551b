// Package session is the state of a node's client sessions and the rules
// that move it, pure like control (and below it: it links neither the
// control plane nor a driver): no clock, no I/O, no goroutine. Time is
// an input (Time: the driver's monotonic count), and what a rule decides
// comes back as data. The service drives it in real time (it keeps the
// goroutines, gRPC, timers and records on the wire); a simulator can
// drive the same code on its own clock.
//
// Why a package of its own: the session lease rule (when a keep-alive
// moves the deadline, when a session has run out, what a record asks its
// backup to keep, what an adopter's deadline is, what a keep-alive's
// answer may promise) was written out in several places, each of which
// had to agree with the others for a client that keeps its session alive
// never to be told it expired, and for a session whose client stopped to
// end no later than TTL + a lease after its last keep-alive. Here it is
// written once (Lease, part of each Session's state with the seq of its
// records and whether it ended), beside the records a node owes its
// backup (Outbox), the backup's side (Keeper: the records of
// other nodes' sessions, and what a view change does with them), the
// queue of deadlines (Expiry), the lock-delays of ended sessions'
// grants (Delays), and what a node answers a call of a
// session it does not serve (Find, Handed: "expired" only where the
// session is known to have ended).
//
// A session's grants by id and the life of each (Grants, GrantLife)
// are here for the same reason: the service and the data plane's model
// (package dataplane, which the simulator runs and a checker judges)
// each kept them, and each had to agree with the other for the model's
// verdicts to hold of the service. Which grants a record carries and a
// new view asks again (the held ones), which go back when the session
// ends and which its requests give back (those still waiting, lost),
// which grant answers a request asked again under its number: written
// once, they are the same in both. What is the driver's stays with it
// (where a grant is held: the service's instance and slot, the model's
// user), and so does its lock: the driver guards a session's Grants,
// and the GrantLife of each of its grants, with the session's lock.
//
//	                 driver (the service, in real time)
//	Opened, KeepAlive(now), ─┐  Keep(now, run, recs) ─┐  TakeOver(now, self, v, prev) ─┐
//	End(record)              v                        v                                v
//	+-- Session -------------------+  +-- Keeper (the backup's side) -------------------+
//	| Lease: TTL, Deadline,        |  | per primary Run: newest Record per session (Seq) |
//	| Adopted, Recorded; Seq;      |  | until = arrival + Left; runs gone, runs left     |
//	| Ended, Handed                |  +--------------------------------------------------+
//	+------------------------------+        |                          |
//	   |           |          |         Keeps(id): alive          TakeOver: Adopt (each
//	 Out(now)   Record(now):  Gone()    elsewhere (SESSION_MOVING,  Lease = Adopt: the
//	 Covered    Left, end;              kept_ms = Kept)             deadline kept),
//	 Promise    Acked(end)                                          Adopted, Dropped
//
//	Expiry: Add(id, deadline) ─> Next(now): a session due, or how long to wait
//	Find(kept, Handed.Has(id, now), own run) ─> Moving | NotHere | Ended
//	Delays: Add(grant, end + lock-delay) ─> Due(now): grants to give back; Held: to ask again in a view
//	Grants (a session's, G embeds GrantLife): Add(g) (refused once ended), Get, Drop(id), List, Held: the
//	  record's and a new view's; Asked(call, same) ─> AskedNew | AskedAgain | AskedOther; End ─> held, lost
//	GrantLife: Waiting ─Answer─> Answered ─Release─> Released (once); Waiting ─Lose, End─> Lost (Answer: false)
//	Outbox (per backup): Push(record) ─> Send(after, now) ─> Ack(batch): in order; Close: the rest
//
// # The lease rule
//
// A session opened at t with TTL runs out at t+TTL; a keep-alive at t'
// before its deadline moves it to t'+TTL. Each record of the session at
// its backup says how long it has left (Left): its deadline plus a slack
// of one lease (the service's --suspect) when the primary's keep-alives
// set it, so that a keep-alive answered before its record reached the
// backup is still covered. The backup counts Left from when it gets the
// record, on its own clock. An adopter keeps that deadline (Adopt), and
// passes it on with no slack more until a keep-alive moves it: adoptions
// in turn never move it on. So a session whose client stopped ends at
// most TTL + slack after the last keep-alive its node received (plus the
// time the newest record took to reach the backup at each adoption). A
// keep-alive whose record did not reach the backup in time is answered
// with no more lease than the backup keeps (Promise): the client never
// counts on the session past what an adopter keeps, and counts it from
// when it sent the keep-alive (Believed, BelievedAtBackup: the client's
// side of the rule).
//
// # The backup's records
//
// A primary records at its backup (the next member of the view's ring:
// Successor) the session when it opens, each grant before it is
// answered, and each give-back and end before the resources go back.
// The records go in order (Outbox: a backup's answer acknowledges every
// record up to its batch; a new stream sends again from the first not
// acknowledged), and Keep takes the newest record of each session by Seq. When a view leaves
// a primary's run out, TakeOver adopts the sessions kept for it, if this
// node was its backup in the view before (the one it recorded at last);
// otherwise the records are stale and dropped. A backup keeps records
// only for the generation of itself they were made for, the one it
// serves as (Admit, Serve): a restarted process at the same address, or
// a node that stopped serving and rejoined (Stop forgets what it kept),
// is not the backup that older records were made for.
package session
