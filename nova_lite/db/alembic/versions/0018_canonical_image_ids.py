"""Images: ids in canonical form (lower case)

Image ids are now stored and looked up in lower case
(``lite_common.uuids``); an id written in upper case by a client before
is lowered here, with the servers' ``image_ref`` that name it. Two
images whose ids differ only in case (possible on SQLite and PostgreSQL:
a project could create the upper-case twin of another project's private
image) stop the upgrade with their ids: delete one, then run the sync
again.

Revision ID: 0018
Revises: 0017
"""

from alembic import op
import sqlalchemy as sa


revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    images = sa.table('images', sa.column('id', sa.String),
                      sa.column('owner', sa.String))
    twins = bind.execute(
        sa.select(sa.func.lower(images.c.id))
        .group_by(sa.func.lower(images.c.id))
        .having(sa.func.count() > 1)).scalars().all()
    if twins:
        raise RuntimeError(
            'Images whose ids differ only in case: '
            + ', '.join(sorted(twins)) + '. Image ids are now compared '
            'in any case: delete the unwanted image of each pair '
            '(openstack image list --long shows their owners), then run '
            'the database sync again.')
    bind.execute(sa.update(images).where(
        images.c.id != sa.func.lower(images.c.id)).values(
        id=sa.func.lower(images.c.id)))
    instances = sa.table('instances', sa.column('image_ref', sa.String))
    bind.execute(sa.update(instances).where(
        instances.c.image_ref != sa.func.lower(instances.c.image_ref)
    ).values(image_ref=sa.func.lower(instances.c.image_ref)))


def downgrade() -> None:
    pass    # lower-case ids are valid ids in the earlier release too
