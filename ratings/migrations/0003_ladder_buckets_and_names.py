"""Ladder buckets: per game, how many ratings lie between two whole Elo points, kept by database
triggers (see ``LadderBucket``); each rating carries its player's name (kept by triggers too) in
the ladder's index; and, on PostgreSQL, a trigram index on those names so that a search for a
rare name reads only the ratings that match."""

from django.conf import settings
from django.db import migrations, models

# floor(value) in SQLite, which has no floor() of its own outside Django's connections: CAST
# truncates towards zero, so a negative value with a fraction needs one less.
SQLITE_FLOOR = "(CAST({v} AS INTEGER) - ({v} < CAST({v} AS INTEGER)))"


def _bucket_row(prefix: str, floor: str, players: int) -> str:
    value = f"{prefix}.value"
    return (
        "INSERT INTO ratings_ladderbucket (game, bucket, players) "
        f"VALUES ({prefix}.game, {floor.format(v=value)}, {players});"
    )


SQLITE_FORWARD = [
    # Whatever is already rated, counted once, before the triggers count the changes.
    "INSERT INTO ratings_ladderbucket (game, bucket, players) "
    f"SELECT game, {SQLITE_FLOOR.format(v='value')}, COUNT(*) FROM ratings_rating "
    f"GROUP BY game, {SQLITE_FLOOR.format(v='value')};",
    "CREATE TRIGGER ratings_rating_bucket_insert AFTER INSERT ON ratings_rating BEGIN "
    + _bucket_row("NEW", SQLITE_FLOOR, 1)
    + " END;",
    "CREATE TRIGGER ratings_rating_bucket_delete AFTER DELETE ON ratings_rating BEGIN "
    + _bucket_row("OLD", SQLITE_FLOOR, -1)
    + " END;",
    "CREATE TRIGGER ratings_rating_bucket_update AFTER UPDATE OF game, value ON ratings_rating "
    f"WHEN OLD.game IS NOT NEW.game OR {SQLITE_FLOOR.format(v='OLD.value')} "
    f"<> {SQLITE_FLOOR.format(v='NEW.value')} BEGIN "
    + _bucket_row("OLD", SQLITE_FLOOR, -1)
    + " "
    + _bucket_row("NEW", SQLITE_FLOOR, 1)
    + " END;",
]
SQLITE_FORWARD += [
    "UPDATE ratings_rating SET name = "
    "(SELECT username FROM auth_user WHERE auth_user.id = ratings_rating.user_id);",
    "CREATE TRIGGER ratings_rating_name_insert AFTER INSERT ON ratings_rating BEGIN "
    "UPDATE ratings_rating SET name = (SELECT username FROM auth_user WHERE id = NEW.user_id) "
    "WHERE id = NEW.id; END;",
    # A full save() of a Rating read before its name was copied writes the name back: copy again.
    "CREATE TRIGGER ratings_rating_name_update AFTER UPDATE OF name, user_id ON ratings_rating "
    "WHEN NEW.name IS NOT (SELECT username FROM auth_user WHERE id = NEW.user_id) BEGIN "
    "UPDATE ratings_rating SET name = (SELECT username FROM auth_user WHERE id = NEW.user_id) "
    "WHERE id = NEW.id; END;",
    "CREATE TRIGGER auth_user_rename_ratings AFTER UPDATE OF username ON auth_user BEGIN "
    "UPDATE ratings_rating SET name = NEW.username WHERE user_id = NEW.id; END;",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS ratings_rating_name_insert;",
    "DROP TRIGGER IF EXISTS ratings_rating_name_update;",
    "DROP TRIGGER IF EXISTS auth_user_rename_ratings;",
    "DROP TRIGGER IF EXISTS ratings_rating_bucket_insert;",
    "DROP TRIGGER IF EXISTS ratings_rating_bucket_delete;",
    "DROP TRIGGER IF EXISTS ratings_rating_bucket_update;",
]

PG_FLOOR = "floor({v})::integer"
POSTGRES_FORWARD = [
    "INSERT INTO ratings_ladderbucket (game, bucket, players) "
    "SELECT game, floor(value)::integer, COUNT(*) FROM ratings_rating "
    "GROUP BY game, floor(value)::integer;",
    """
    CREATE FUNCTION ratings_rating_bucket() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            """
    + _bucket_row("OLD", PG_FLOOR, -1)
    + """
        END IF;
        IF TG_OP <> 'DELETE' THEN
            """
    + _bucket_row("NEW", PG_FLOOR, 1)
    + """
        END IF;
        RETURN NULL;
    END $$;
    """,
    "CREATE TRIGGER ratings_rating_bucket_insert_delete AFTER INSERT OR DELETE ON ratings_rating "
    "FOR EACH ROW EXECUTE FUNCTION ratings_rating_bucket();",
    "CREATE TRIGGER ratings_rating_bucket_update AFTER UPDATE OF game, value ON ratings_rating "
    "FOR EACH ROW WHEN (OLD.game IS DISTINCT FROM NEW.game "
    "OR floor(OLD.value) <> floor(NEW.value)) EXECUTE FUNCTION ratings_rating_bucket();",
    "UPDATE ratings_rating SET name = auth_user.username FROM auth_user "
    "WHERE auth_user.id = ratings_rating.user_id;",
    """
    CREATE FUNCTION ratings_rating_name() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        NEW.name := (SELECT username FROM auth_user WHERE id = NEW.user_id);
        RETURN NEW;
    END $$;
    """,
    "CREATE TRIGGER ratings_rating_name BEFORE INSERT OR UPDATE OF name, user_id"
    " ON ratings_rating FOR EACH ROW EXECUTE FUNCTION ratings_rating_name();",
    """
    CREATE FUNCTION auth_user_rename_ratings() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE ratings_rating SET name = NEW.username WHERE user_id = NEW.id;
        RETURN NULL;
    END $$;
    """,
    "CREATE TRIGGER auth_user_rename_ratings AFTER UPDATE OF username ON auth_user"
    " FOR EACH ROW WHEN (OLD.username IS DISTINCT FROM NEW.username)"
    " EXECUTE FUNCTION auth_user_rename_ratings();",
    # A trusted extension since PostgreSQL 13: the database's owner may create it.
    "CREATE EXTENSION IF NOT EXISTS pg_trgm;",
    # What ``name__icontains`` compares: UPPER(name) LIKE UPPER('%text%').
    "CREATE INDEX ratings_rating_name_trgm_idx ON ratings_rating "
    "USING gin (UPPER(name::text) gin_trgm_ops);",
]
POSTGRES_BACKWARD = [
    "DROP INDEX IF EXISTS ratings_rating_name_trgm_idx;",
    "DROP TRIGGER IF EXISTS auth_user_rename_ratings ON auth_user;",
    "DROP FUNCTION IF EXISTS auth_user_rename_ratings();",
    "DROP TRIGGER IF EXISTS ratings_rating_name ON ratings_rating;",
    "DROP FUNCTION IF EXISTS ratings_rating_name();",
    "DROP TRIGGER IF EXISTS ratings_rating_bucket_update ON ratings_rating;",
    "DROP TRIGGER IF EXISTS ratings_rating_bucket_insert_delete ON ratings_rating;",
    "DROP FUNCTION IF EXISTS ratings_rating_bucket();",
]


def _run(statements: dict[str, list[str]]):
    def run(apps, schema_editor) -> None:
        for statement in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0002_rating_ladder_index"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LadderBucket",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("game", models.CharField(max_length=40)),
                ("bucket", models.IntegerField()),
                ("players", models.IntegerField()),
            ],
        ),
        migrations.RemoveIndex(model_name="rating", name="rating_ladder_idx"),
        migrations.AddField(
            model_name="rating",
            name="name",
            field=models.CharField(default="", editable=False, max_length=150),
        ),
        migrations.RunPython(
            _run({"sqlite": SQLITE_FORWARD, "postgresql": POSTGRES_FORWARD}),
            _run({"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRES_BACKWARD}),
        ),
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(
                fields=["game", "-value", "id"], include=("user", "name"), name="rating_ladder_idx"
            ),
        ),
        migrations.AddIndex(
            model_name="ladderbucket",
            index=models.Index(
                fields=["game", "bucket"], include=("players",), name="ladder_bucket_idx"
            ),
        ),
    ]
