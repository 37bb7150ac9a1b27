from django.db import migrations, models


class Migration(migrations.Migration):
    """The ladder's index gains the id that breaks ties, so that PostgreSQL walks a page of the
    ladder (ORDER BY value DESC, id) from the index alone, without reading each row for its id.
    SQLite's index already ended with the rowid; for it this changes nothing."""

    dependencies = [
        ("ratings", "0001_initial"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(fields=["game", "-value", "id"], name="rating_ladder_idx"),
        ),
        migrations.RemoveIndex(
            model_name="rating",
            name="ratings_rat_game_8a7346_idx",
        ),
    ]
