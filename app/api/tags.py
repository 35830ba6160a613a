"""Tags on a sweep: list, add, replace, remove (writes need the write token)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from app.http.deps import IdPath, SessionDep, WriteDep
from app.schemas.answers.sweeps import SweepTags
from app.schemas.answers.typed.sweeps import SweepTagsDict
from app.schemas.responses import ERROR_RESPONSES
from app.schemas.tags import TagsBody
from app.services.sweeps import tags as tag_service
from app.store import sweeps as sweep_queries
from app.store import tags as tag_store

router = APIRouter(prefix="/api", tags=["sweeps"], responses=ERROR_RESPONSES)
TagPath = Annotated[str, Path(max_length=200, description="a tag, e.g. baseline:main")]


@router.get("/sweeps/{sweep_id}/tags", name="api_sweep_tags", response_model=SweepTags)
def api_sweep_tags(sweep_id: IdPath, session: SessionDep) -> SweepTagsDict:
    """The sweep's tags."""
    sweep_queries.get_sweep(session, sweep_id)
    return {"sweep_id": sweep_id, "tags": tag_store.tags_of(session, sweep_id)}


@router.post(
    "/sweeps/{sweep_id}/tags",
    name="api_sweep_tags_add",
    dependencies=[WriteDep],
    response_model=SweepTags,
)
def api_sweep_tags_add(sweep_id: IdPath, body: TagsBody, session: SessionDep) -> SweepTagsDict:
    """Add `tag` (or each of `tags`); the newest sweep with a tag stands for it in `check`.

    Across fields: give `tag` or `tags`.
    """
    tags = tag_service.add(
        session, sweep_id, body.values(), field="tag" if body.tag is not None else "tags"
    )
    session.commit()
    return {"sweep_id": sweep_id, "tags": tags}


@router.put(
    "/sweeps/{sweep_id}/tags",
    name="api_sweep_tags_set",
    dependencies=[WriteDep],
    response_model=SweepTags,
)
def api_sweep_tags_set(sweep_id: IdPath, body: TagsBody, session: SessionDep) -> SweepTagsDict:
    """Replace the sweep's tags with `tags`.

    Across fields: give `tag` or `tags`.
    """
    tags = tag_service.replace(session, sweep_id, body.values())
    session.commit()
    return {"sweep_id": sweep_id, "tags": tags}


@router.delete(
    "/sweeps/{sweep_id}/tags/{tag}",
    name="api_sweep_tags_remove",
    dependencies=[WriteDep],
    response_model=SweepTags,
)
def api_sweep_tags_remove(sweep_id: IdPath, tag: TagPath, session: SessionDep) -> SweepTagsDict:
    """Remove one tag."""
    tags = tag_service.remove(session, sweep_id, tag)
    session.commit()
    return {"sweep_id": sweep_id, "tags": tags}
