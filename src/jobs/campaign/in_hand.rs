//! The runs a campaign's driver carries out now, each with its own stop switch: thrown when the
//! campaign stops, or for that run alone when another process asks (`campaign cancel --run`).

use crate::ids::RunId;
use tokio::sync::watch;

/// The runs a driver carries out now, each with its own stop switch.
#[derive(Default)]
pub struct RunsInHand {
    stops: std::collections::HashMap<RunId, (watch::Sender<bool>, tokio::task::AbortHandle)>,
    stopped: std::collections::HashSet<RunId>,
}

impl RunsInHand {
    /// `run_id`'s own stop switch, thrown by `stop` or when `campaign`'s is.
    pub fn own_stop(&mut self, run_id: &RunId, campaign: &watch::Receiver<bool>) -> watch::Receiver<bool> {
        let (tx, rx) = watch::channel(false);
        let (mut campaign, forward) = (campaign.clone(), tx.clone());
        let forwarding = tokio::spawn(async move {
            if campaign.wait_for(|stopped| *stopped).await.is_ok() {
                let _ = forward.send(true);
            }
        });
        self.stops.insert(run_id.clone(), (tx, forwarding.abort_handle()));
        rx
    }

    /// The run ended: its switch put away; whether it was stopped on request.
    pub fn let_go(&mut self, run_id: &RunId) -> bool {
        if let Some((_, forwarding)) = self.stops.remove(run_id) {
            forwarding.abort();
        }
        self.stopped.remove(run_id)
    }

    /// Stop `run_id` on request; false when it is not in hand.
    pub fn stop(&mut self, run_id: &RunId) -> bool {
        let Some((stop, _)) = self.stops.get(run_id) else { return false };
        let _ = stop.send(true);
        self.stopped.insert(run_id.clone());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_run_stops_alone_on_request_and_with_the_campaign() {
        let (campaign_tx, campaign) = watch::channel(false);
        let mut runs = RunsInHand::default();
        let (a, b) = (RunId::from("a"), RunId::from("b"));
        let (mut stop_a, mut stop_b) = (runs.own_stop(&a, &campaign), runs.own_stop(&b, &campaign));
        assert!(runs.stop(&a) && !runs.stop(&RunId::from("c")));
        stop_a.wait_for(|s| *s).await.unwrap();
        assert!(!*stop_b.borrow(), "the other run goes on");
        campaign_tx.send(true).unwrap();
        stop_b.wait_for(|s| *s).await.unwrap();
        assert_eq!((runs.let_go(&a), runs.let_go(&b)), (true, false), "only a was stopped on request");
    }
}
