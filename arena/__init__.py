"""Arena tournaments (spec/arena.md).

Pure parts: ``pairing`` (who sits with whom), ``scoring`` (points, fire, performance, order of
the standings), ``schedule`` (the recurring arenas). Django parts: ``models``, ``services`` (what
players do and what pages read, and the ``match_ended`` receiver that adds points), ``jobs``
(the worker: create, start, seat, end, trophies) and ``api``.

Choices where the spec is silent:
- Waiting: joined, not paused or withdrawn, and not at a live arena table (of any arena: one
  arena match at a time). Read from the seats, so an aborted table frees its players too (the
  ``match_ended`` receiver starts their waiting clocks); an aborted table scores nothing.
- Left-over players (fewer than n, those who waited least) wait for the next round. The table
  that just played together is held back while nobody in it has waited ``max_wait`` (20 s).
- Pause, resume: ``…/pause`` and ``…/resume``; joining again also resumes (and undoes a
  withdrawal). Join, pause and resume are idempotent.
- Players who are not there: a player who did not play an arena table (the timer's bot moved for
  them and they never did, or the table was called off while they were to move) and has no arena
  page or table open (``players.presence.is_at_play``) is paused when the table ends, with the
  reason (``Entry.paused_reason``), which their arena page shows; resuming clears it. Without
  this the arena seats a player who closed their browser again and again, at tables called off.
- Withdraw: before the start the entry is deleted; once running, the player keeps their points
  and place in the standings (shown as paused) and is never seated again unless they rejoin.
- Trophies: the first three of the standings among players with at least one match.
- Performance: the mean over opponents met of (opponent's rating at seating ± 400 for a result
  ahead/behind, ± 0 when level); players without a match come after those with one.
- Arena matches: mode "ranked" (rated by the ratings receiver), seats drawn by the site as at
  every table, turn timer of the arena (default 30 s).
- A player who is not staff may have at most 3 arenas announced or running.
- A private arena's tables are private: its creator and its entrants may watch them (as may anyone
  with a table's own invitation code); someone who has only the arena's link sees the standings
  and the tables listed, without links, and joins to watch. Everyone else gets 404, as for a table
  that does not exist.
"""
