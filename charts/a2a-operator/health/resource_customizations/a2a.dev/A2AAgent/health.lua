-- Argo CD health check for a2a.dev/A2AAgent (resource.customizations.health.a2a.dev_A2AAgent).
--
-- A2AAgent follows kstatus: status.observedGeneration, and the Ready, Reconciling and Stalled
-- conditions (Stalled=True is a verdict that will not change without a change to the agent or
-- its spec). The rules, in order:
--   1. no status yet, or status.observedGeneration ~= metadata.generation  -> Progressing
--      (the operator has not judged this generation; prevents flapping on spec changes)
--   2. Stalled=True                                                        -> Degraded
--   3. Reconciling=True                                                    -> Progressing
--   4. Ready=True                                                          -> Healthy
--   5. anything else (Ready=False without Stalled, Ready=Unknown, none)    -> Progressing
-- Ready=False alone is Progressing, as in kstatus (InProgress): it means "not yet" (e.g. no
-- ready pod yet, a failure not confirmed by failureThreshold probes). Only Stalled fails a
-- sync, so Argo CD, Flux (kstatus and the healthCheckExprs in docs/gitops.md) agree.
-- Uses only Lua 5.1 base functions: Argo CD does not open the string library by default.
local hs = {}

local function condition(conditions, t)
  if conditions == nil then
    return nil
  end
  for _, c in ipairs(conditions) do
    if c.type == t then
      return c
    end
  end
  return nil
end

local function describe(c, fallback)
  if c ~= nil and c.message ~= nil and c.message ~= "" then
    return c.message
  end
  if c ~= nil and c.reason ~= nil then
    return c.reason
  end
  return fallback
end

if obj.status == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the a2a-operator to report status"
  return hs
end

local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and (observed == nil or observed ~= generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for the a2a-operator to observe generation " .. tostring(generation)
  return hs
end

local conditions = obj.status.conditions
local stalled = condition(conditions, "Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(stalled, "Stalled")
  return hs
end

local reconciling = condition(conditions, "Reconciling")
if reconciling ~= nil and reconciling.status == "True" then
  hs.status = "Progressing"
  hs.message = describe(reconciling, "Reconciling")
  return hs
end

local ready = condition(conditions, "Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = describe(ready, "Ready")
  return hs
end

hs.status = "Progressing"
hs.message = describe(ready, "Waiting for the Ready condition")
return hs
