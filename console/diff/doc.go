// Package diff is the line-based unified diff the Console shows between two
// texts: a pinned and the current compiled workflow, a source and its
// compiled form. Lines gives the hunks, Unified the text `diff -u` prints.
//
// The algorithm is Myers' O(ND) difference algorithm in linear space (the
// middle-snake divide and conquer, as GNU diff and git's xdiff do it), with
// two preparations GNU diff also makes: the common prefix and suffix are set
// aside first, and lines that occur in only one of the texts are marked
// changed before the search starts (no common subsequence can use them, so
// this changes nothing but the work). Two 5,000-line documents that differ in
// a few places diff in under a millisecond.
//
// Two bounds keep the worst case fast, and neither ever makes a diff wrong
// (applying the hunks to a always gives b); past them a diff may only be
// longer than the shortest:
//
//   - cost: when the search for one split point has spent 256 edits without
//     the two directions meeting, it splits at the point furthest along
//     either direction has reached (xdiff's and GNU diff's heuristic) and
//     goes on with the halves.
//   - work: when the whole search has taken 2^20 steps (a diagonal tried or
//     a pair of equal lines followed; a few milliseconds), whatever is left
//     to search is marked changed: deleted from a and added from b.
//
// Texts whose differences are ordinary edits stay well inside both and get a
// shortest diff: three edits to 5,000 lines of JSON take about 5,000 steps,
// 300 scattered ones about 60,000. Two unrelated 5,000-line JSON documents
// take about 60,000 (most of their lines occur on one side only), and the
// worst case, a document against its own lines shuffled, reaches both
// bounds and still ends in under 10 ms (about 7 ms on a 2-core VM).
//
// After the search, each run of changed lines is slid as GNU diff slides it:
// down as far as equal lines allow, then back up to line up with a change in
// the other text if it can. Among diffs of equal length this picks the one
// `diff -u` prints, so Unified prints what GNU diff -u prints for the goldens
// in testdata, written by GNU diff 3.8. In highly repetitive text it may pick
// another diff of the same length: GNU diff also sets aside lines that match
// very often and looks only context lines into the common prefix and suffix,
// and the diff here does neither, so that which lines change never depends
// on context.
//
// A text is split on "\n"; a final "\n" ends the last line rather than
// starting an empty one, so "a\nb\n" and "a\nb" are both two lines. In the
// second, the last line has no newline: its Line has NoEOL set, it differs
// from the same text with a newline (so adding or removing a final newline
// shows as the last line deleted and added again), and Unified prints
// `\ No newline at end of file` after it, as diff -u does. "\r" is kept as
// part of the line. The empty string has no lines.
//
// Output is deterministic: the same inputs always give the same hunks and
// the same bytes. The package imports nothing from WorkRail.
package diff
