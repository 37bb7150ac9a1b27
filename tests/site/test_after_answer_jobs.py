"""The jobs a request leaves for after its answer (``pdc_site.request_threads.AfterAnswerJobs``):
plain synchronous code, kept apart from the request threads' tests, which all run on an event
loop."""

from __future__ import annotations

from pdc_site.request_threads import AfterAnswerJobs


def test_a_job_kept_last_runs_after_every_other_job_even_those_kept_later():
    ran: list[str] = []
    jobs = AfterAnswerJobs()
    jobs.add(lambda: ran.append("first"))
    jobs.add(lambda: ran.append("bookkeeping"), last=True)
    jobs.add(lambda: ran.append("doorbell"))
    jobs.add(lambda: ran.append("more bookkeeping"), last=True)
    jobs.run_jobs()
    assert ran == ["first", "doorbell", "bookkeeping", "more bookkeeping"]
    jobs.add(lambda: ran.append("next request's"))
    jobs.run_jobs()
    assert ran[-1] == "next request's"
