"""The names' trigram index (PostgreSQL) written through at once instead of gathering a pending
list: every rated match rewrites its players' ratings (the ladder's index holds the value, so
the update is never HOT) and each new row version went to the GIN index's pending list, which
every search then scans row by row until a vacuum empties it. Measured on the 100,000-player
ladder after a few hundred rating changes: the index scan of a name search took 6.2–6.9 ms with
1,032 pending entries and 2.1 ms without."""

from django.db import migrations

INDEX = "ratings_rating_name_trgm_idx"


def _set_fastupdate(on: bool):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute(f"ALTER INDEX {INDEX} SET (fastupdate = {'on' if on else 'off'})")
        if not on:
            # What gathered already, merged now rather than at the next vacuum.
            schema_editor.execute(f"SELECT gin_clean_pending_list('{INDEX}'::regclass)")

    return run


class Migration(migrations.Migration):
    dependencies = [("ratings", "0005_no_bucket_row_below_an_empty_ladder")]

    operations = [migrations.RunPython(_set_fastupdate(False), _set_fastupdate(True))]
