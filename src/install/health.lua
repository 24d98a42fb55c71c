-- Argo CD health of a sluice resource, read from the conditions the operator writes. Kind-agnostic: every
-- sluice kind has Ready and Synced conditions with the same reasons. Runs without Lua's standard libraries
-- (Argo CD gives argocd-cm scripts only base, table and a safe os), so it uses no string functions.
local hs = {}

local function condition(type)
  if obj.status ~= nil and obj.status.conditions ~= nil then
    for _, c in ipairs(obj.status.conditions) do
      if c.type == type then
        return c
      end
    end
  end
  return nil
end

local function messageOf(c, fallback)
  if c ~= nil and c.message ~= nil and c.message ~= "" then
    return c.message
  end
  return fallback
end

local function result(status, message)
  hs.status = status
  hs.message = message
  return hs
end

-- Argo CD says this of every object being deleted; sluice holds a finalizer until the cloud side is gone.
if obj.metadata.deletionTimestamp ~= nil then
  return result("Progressing", "Pending deletion")
end

local ready = condition("Ready")
local synced = condition("Synced")
local annotations = obj.metadata.annotations or {}

if annotations["sluice.dev/paused"] == "true" or (synced ~= nil and synced.reason == "ReconcilePaused") then
  return result("Suspended", messageOf(synced, "reconciling is paused by the sluice.dev/paused annotation"))
end

if ready == nil and synced == nil then
  return result("Progressing", "Waiting for sluice to reconcile")
end

local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and (observed == nil or observed < generation) then
  return result("Progressing", "Waiting for sluice to act on generation " .. tostring(generation))
end

-- Stalled (a kstatus condition) is sluice's own word that only a person can end the failure: a request the
-- cloud refuses for good, a missing Secret, a resource the cloud reports failed, another object's claim.
local stalled = condition("Stalled")
if stalled ~= nil and stalled.status == "True" then
  return result("Degraded", messageOf(stalled, stalled.reason))
end

-- A status written before sluice wrote Stalled is judged by its reasons.
if synced ~= nil and synced.status == "False" then
  -- The reasons that fail the same way until a person acts (the cloud refused the spec, credentials or a
  -- referenced Secret to fix, an object to choose or replace): retrying will not help. Filled by
  -- `npm run generate` from the reasons tables (src/base/reasons.ts and each kind's `reasons`).
  local userMustAct = {
    -- reasons: Synced=False, Degraded
  }
  if userMustAct[synced.reason] then
    return result("Degraded", messageOf(synced, synced.reason))
  end
  -- Anything else (the cloud answered 5xx, the apiserver failed) is retried with backoff; Ready is then
  -- False (SyncFailed) whenever the cloud may not match the spec.
  if ready == nil or ready.status ~= "True" then
    return result("Progressing", "Retrying: " .. messageOf(synced, synced.reason))
  end
end

if ready ~= nil and ready.status == "True" then
  -- A Ready=True said of an earlier spec says nothing of this one (sluice rewrites Ready whenever it acts
  -- on a generation; a status left by an older version may not have).
  if generation ~= nil and ready.observedGeneration ~= nil and ready.observedGeneration < generation then
    return result("Progressing", "Waiting for sluice to apply generation " .. tostring(generation))
  end
  return result("Healthy", messageOf(ready, ready.reason or "Ready"))
end

if ready ~= nil then
  -- The reasons that say the cloud object is not what it should be and only a person can change that
  -- (another object manages it, the cloud reports it failed, a reverse private endpoint's connection was
  -- refused): filled by `npm run generate` from the reasons tables, as userMustAct is.
  local failed = {
    -- reasons: Ready=False, Degraded
  }
  if failed[ready.reason] then
    return result("Degraded", messageOf(ready, ready.reason))
  end
  -- Creating, Updating, Unavailable (the cloud is changing state), WaitingForReference, PendingAcceptance,
  -- Deleting, ExternalMissing (made anew): sluice is waiting for something that happens without the user.
  -- ObserveOnly: the cloud differs from the spec (or is not usable yet) and sluice only watches; the message
  -- names the calls managementPolicy Full would send.
  return result("Progressing", messageOf(ready, ready.reason))
end

return result("Progressing", "Waiting for sluice to reconcile")
